"""The rule that refused a citation, as a reviewer reads it.

A failed citation stores the id of the rule that refused it
(`MessageCitation.rule`, written by citations.verdicts). Its name and what it
refuses come from the one rule table (citations/cascade/rules.py): the
citation panel, the review tab's filter and cards, the admin's filter and
the API all read them here, never from prose of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from citations.cascade.rules import BY_ID
from citations.selectors import CitationFilters, citation_rule_counts

if TYPE_CHECKING:
    from accounts.models import Tenant


@dataclass(frozen=True)
class RuleShown:
    """A rule as shown: its id, name and what it refuses. A stored id the
    table no longer has (a rule renamed since) is shown by its id."""

    id: str
    name: str
    refuses: str


def rule_shown(rule_id: str | None) -> RuleShown | None:
    """The rule `rule_id` names, or None for no rule."""
    if not rule_id:
        return None
    rule = BY_ID.get(rule_id)
    if rule is None:
        return RuleShown(rule_id, rule_id, "")
    return RuleShown(rule.id, rule.name, rule.refuses)


def rule_choices() -> list[tuple[str, str]]:
    """(id, label) of every rule, in the table's order (the stages')."""
    return [(rule.id, f"{rule.name} ({rule.id})") for rule in BY_ID.values()]


@dataclass(frozen=True)
class RuleCount:
    rule: RuleShown
    count: int


def rule_counts(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> list[RuleCount]:
    """How many of the filtered citations each rule refused, most first."""
    counted = citation_rule_counts(tenant=tenant, filters=filters)
    return [
        RuleCount(shown, n)
        for rule_id, n in counted.items()
        if (shown := rule_shown(rule_id)) is not None
    ]
