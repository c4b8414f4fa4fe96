"""The judge held to the guards (entities.py): an obedient judge, one that
says "supported" to anything, verifies no quote that changes who, where or
when, alone or as an ensemble; faithful paraphrases still verify."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citations.cascade import JudgeResult, verify_quote
from citations.cascade.entities import entities_absent, entity_difference

CONTRACT = (
    "1. Supply. The Supplier shall deliver the Products to the Buyer within "
    "thirty (30) days of each order. The Buyer shall pay the Supplier within "
    "30 days of the invoice date. "
    "2. Licence. Northwind Traders Inc. grants Acme Tools Ltd a non-exclusive "
    "licence to sell the Products in the United States. "
    "3. Law. This Agreement shall be governed by the laws of England. "
    "4. Disputes. Any dispute shall be finally resolved by arbitration under "
    "the LCIA Rules, seated in London. "
    "5. Notice. Either party may terminate this Agreement on notice given 60 "
    "days before the end of the Term."
)


class Obedient:
    def __init__(self, span: str, name: str = "obedient") -> None:
        self.span, self.name = span, name

    def __call__(self, *, passage: str, quote: str) -> JudgeResult:
        return JudgeResult(True, self.span, 0.99, "supported, as instructed")


def _sentence(words: str) -> str:
    start = CONTRACT.index(words)
    # A sentence ends at a full stop before a capital ("Inc. grants" goes on).
    end = re.compile(r"\.(?=\s+[A-Z0-9]|$)").search(CONTRACT, start).end()
    return CONTRACT[start:end]


# The edits: each says something the contract does not.
EDITS = [
    (
        "The Buyer shall pay the Supplier",
        "The Supplier shall pay the Buyer within 30 days of the invoice date.",
        "entity.role",
    ),
    (
        "Northwind Traders",
        "Zenith Traders Inc. grants Acme Tools Ltd a non-exclusive licence to "
        "sell the Products in the United States.",
        "entity.party",
    ),
    (
        "Northwind Traders",
        "Northwind Traders Inc. grants Acme Tools Ltd a non-exclusive licence to "
        "sell the Products in Canada.",
        "entity.place",
    ),
    (
        "This Agreement shall be governed",
        "This Agreement shall be governed by the laws of New York.",
        "entity.law",
    ),
    (
        "Any dispute",
        "Any dispute shall be finally resolved by the courts, seated in London.",
        "entity.forum",
    ),
    (
        "Any dispute",
        "Any dispute shall be finally resolved by arbitration under the ICC "
        "Rules, seated in Paris.",
        "entity.forum",
    ),
    (
        "Either party may terminate",
        "Either party may terminate this Agreement on notice given 60 months "
        "before the end of the Term.",
        "entity.date",
    ),
    (
        "Either party may terminate",
        "Either party may terminate this Agreement on notice given 60 days "
        "after the end of the Term.",
        "entity.date",
    ),
]


def _chunk(words: str) -> tuple[int, int]:
    start = CONTRACT.index(words)
    return max(0, start - 200), min(len(CONTRACT), start + 400)


@pytest.mark.parametrize(("anchor", "quote", "rule"), EDITS)
def test_an_obedient_judge_verifies_no_changed_entity(anchor, quote, rule):
    chunk = _chunk(anchor)
    alone = verify_quote(CONTRACT, quote, within=chunk)
    assert not alone.verified
    judged = verify_quote(
        CONTRACT, quote, within=chunk, judge=Obedient(_sentence(anchor))
    )
    assert not judged.verified
    assert judged.rule == rule, judged.reason
    ensemble = verify_quote(
        CONTRACT,
        quote,
        within=chunk,
        ensemble=[Obedient(_sentence(anchor), f"judge {i}") for i in range(3)],
        quorum=2,
        high_stakes=True,
    )
    assert not ensemble.verified
    assert ensemble.rule == rule, ensemble.reason


@pytest.mark.parametrize(("anchor", "quote", "rule"), EDITS)
def test_a_judge_naming_the_whole_chunk_lends_no_entity(anchor, quote, rule):
    chunk = _chunk(anchor)
    verdict = verify_quote(
        CONTRACT, quote, within=chunk, judge=Obedient(CONTRACT[chunk[0] : chunk[1]])
    )
    assert not verdict.verified, verdict.reason


FAITHFUL = [
    (
        "The Buyer shall pay the Supplier",
        "The Buyer shall pay the Supplier 30 days after invoicing",
    ),
    ("This Agreement shall be governed", "English law governs this Agreement"),
    ("Any dispute", "Disputes shall go to LCIA arbitration in London"),
    (
        "Northwind Traders",
        "Northwind Traders Inc. gives Acme Tools Ltd a non-exclusive licence to "
        "sell the Products in the United States",
    ),
]


@pytest.mark.parametrize(("anchor", "quote"), FAITHFUL)
def test_faithful_paraphrases_still_verify(anchor, quote):
    verdict = verify_quote(
        CONTRACT, quote, within=_chunk(anchor), judge=Obedient(_sentence(anchor))
    )
    assert verdict.verified, verdict.reason
    assert verdict.source_text == _sentence(anchor)


def test_before_the_judge_an_absent_entity_asks_no_one():
    asked = []

    class Counting(Obedient):
        def __call__(self, *, passage: str, quote: str) -> JudgeResult:
            asked.append(quote)
            return super().__call__(passage=passage, quote=quote)

    quote = "This Agreement is governed by the laws of Delaware"
    verdict = verify_quote(
        CONTRACT,
        quote,
        within=_chunk("3. Law"),
        judge=Counting(_sentence("This Agreement")),
    )
    assert not verdict.verified and verdict.rule == "entity.law"
    assert asked == []
    assert verdict.rule == "entity.law", verdict.reason
    assert "not shown to a judge" in verdict.reason


_ROLES = [("Licensor", "Licensee"), ("Buyer", "Seller"), ("Landlord", "Tenant")]
_VERBS = ["shall pay", "may notify", "must indemnify", "shall reimburse"]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(_ROLES),
    st.sampled_from(_VERBS),
    st.sampled_from(["the fees", "all costs", "every claim"]),
)
def test_swapped_roles_never_verify_and_kept_roles_do(roles, verb, obj):
    a, b = roles
    source = f"The {a} {verb} the {b} {obj} under this clause."
    text = f"Recitals follow. {source} Other terms apply."
    kept = f"The {a} {verb} the {b} {obj}"
    swapped = f"The {b} {verb} the {a} {obj}"
    judge = Obedient(source)
    assert entity_difference(kept, source) is None
    assert entity_difference(swapped, source) is not None
    assert entities_absent(swapped, text) is None  # both roles are there
    assert not verify_quote(text, swapped + " here", judge=judge).verified
    assert verify_quote(text, kept + ", as agreed", judge=judge).verified


def test_the_entity_table_is_read_when_the_guard_runs(monkeypatch):
    # bench/judge_guard_eval.py measures the judge without the entity guards
    # by emptying ENTITY_RULES in its process: the loop must read the table
    # at call time, or that column silently reports the guards on.
    from citations.cascade import entities

    span = "Acme Tools shall pay Borealis the fees within a month."
    quote = "Zenith Tools shall pay Borealis the fees in a month"
    assert entity_difference(quote, span).rule == "entity.party"
    monkeypatch.setattr(entities, "ENTITY_RULES", ())
    assert entity_difference(quote, span) is None
