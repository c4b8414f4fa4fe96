"""The relevance marks are one ordered table (citations.marks): each row's
examples are decided by that row, and a rating by word rules never says a
passage does not answer (only a model's rating may)."""

from __future__ import annotations

import pytest

from citations.marks import RELEVANCE_MARKS, RelevanceFacts, mark_for
from citations.models import Relevance


@pytest.mark.parametrize(
    ("mark", "facts"),
    [(m, f) for m in RELEVANCE_MARKS for f in m.examples],
    ids=lambda v: getattr(v, "key", ""),
)
def test_each_marks_examples_are_decided_by_it(mark, facts):
    assert mark_for(facts) is mark


@pytest.mark.parametrize("method", ["offline", "model", "judge", ""])
def test_only_a_models_related_says_it_does_not_answer(method):
    mark = mark_for(RelevanceFacts(Relevance.RELATED, method=method))
    assert ("does not answer" in mark.label) == (method != "offline")
    assert mark.supporting
