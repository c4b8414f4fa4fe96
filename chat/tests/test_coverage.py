"""Which sentences of an answer a verified, relevant citation supports."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chat.coverage import PENDING, SUPPORTED, UNSUPPORTED, answer_sentences, coverage
from chat.rendering import Text, answer_segments, mark_uncited

ANSWER = (
    "The agreement can be ended early. "
    "Either party may terminate on ninety (90) days notice [S1]. "
    "Late payments bear interest at 1.5% per month (Source: [S2]). "
    "The supplier must also keep insurance in force at all times.\n\n"
    "Searched: all your documents for: insurance."
)


def test_markers_belong_to_the_sentence_before_them():
    sentences = answer_sentences(ANSWER)
    refs = [s.refs for s in sentences if s.claim]
    assert refs == [(), ("S1",), ("S2",), ()]
    assert not any(s.claim for s in sentences if "Searched:" in ANSWER[s.start : s.end])


def test_claims_are_marked_by_their_best_ref():
    support = {"S1": SUPPORTED, "S2": PENDING}.get
    marks = coverage(answer_sentences(ANSWER), lambda ref: support(ref, UNSUPPORTED))
    assert [m["status"] for m in marks] == [
        UNSUPPORTED,
        SUPPORTED,
        PENDING,
        UNSUPPORTED,
    ]
    assert "insurance" in ANSWER[marks[-1]["start"] : marks[-1]["end"]]


def test_a_lead_in_is_not_a_claim():
    assert not any(s.claim for s in answer_sentences("The documents say:"))


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab .[]S12()"), max_size=120),
    st.lists(st.tuples(st.integers(0, 120), st.integers(0, 120)), max_size=4),
)
def test_marking_uncited_spans_keeps_the_answer_text(answer, spans):
    segments, _ = answer_segments(answer, [])
    spans = [(min(a, b), max(a, b)) for a, b in spans]
    marked = mark_uncited(segments, spans)

    def text(segs):
        return "".join(s.text for s in segs if isinstance(s, Text))

    assert text(marked) == text(segments)
    for seg in marked:
        if isinstance(seg, Text) and seg.uncited and seg.text:
            assert any(
                s <= seg.start and seg.start + len(seg.text) <= e for s, e in spans
            )
