"""How a citation's verdict is shown: one place for badge classes and labels,
used by the chat page, the review tab and exports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from citations.cascade.tolerant import SIMILARITY_THRESHOLD
from citations.models import Method, Status

if TYPE_CHECKING:
    from citations.models import MessageCitation


@dataclass(frozen=True)
class BadgeState:
    css: str
    label: str
    icon: str


def badge_state(
    status: str, method: str | None, *, differs: bool = False, found_in: str = ""
) -> BadgeState:
    """`differs`: a failed quote's closest passage was found, and it says
    something else (a number, a negation); `found_in`: the failed quote is
    in another source of the same answer, by its label."""
    if status == Status.VERIFIED:
        if method == Method.EXACT:
            return BadgeState("verified", "Verified: exact quote", "✓")
        if method == Method.TOLERANT:
            return BadgeState("tolerant", "Verified: tolerant match", "✓")
        return BadgeState("judged", "Supported: judged by model", "≈")
    if status == Status.FAILED:
        if found_in:
            label = f"Not verified: the quote is in another source ({found_in})"
        elif differs:
            label = "Not verified: the source differs from the quote"
        else:
            label = "Not verified: quote not found in the source"
        return BadgeState("failed", label, "✗")
    if status == Status.PENDING:
        return BadgeState("pending", "Verifying…", "…")
    if status == Status.OUT_OF_PROVENANCE:
        return BadgeState(
            "oop", "Not verified: cites a source that was not provided", "!"
        )
    return BadgeState("unverified", "Unverified: no quote to check", "?")


def differs_from_source(citation: MessageCitation) -> bool:
    """A failed citation whose closest passage is as similar as a match would
    be, so what failed it is a difference the guard names, not absence."""
    return (
        bool(citation.candidate_text)
        and (citation.match_score or 0.0) >= SIMILARITY_THRESHOLD
    )


def citation_badge(citation: MessageCitation) -> BadgeState:
    return badge_state(
        citation.verification_status,
        citation.verification_method,
        differs=differs_from_source(citation),
        found_in=citation.mis_attributed_to,
    )


def match_summary(citation: MessageCitation) -> str:
    """The panel's "Match" line. A failed quote's score is its closest
    passage's similarity, which says nothing of a match: "Not found · score
    1.00" for a quote the guard failed on a "not" would contradict itself."""
    score = citation.match_score
    if citation.verification_status == Status.FAILED:
        if differs_from_source(citation):
            return f"Differs from the source · closest passage {score:.2f} similar"
        return "Not found"
    kind = citation.get_match_type_display() or "—"
    return kind if score is None else f"{kind} · score {score:.2f}"


def footnote_text(
    *,
    number: int,
    title: str | None,
    page: int | None,
    quote: str,
    badge: BadgeState,
) -> str:
    where = title or "unknown source"
    if page:
        where += f", p. {page}"
    quoted = f' "{quote}"' if quote else ""
    return f"{where}:{quoted} ({badge.label})"
