"""Rendering a model's structured answer into the stored text (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chat.coverage import answer_sentences
from chat.structured import StructuredAnswer, render
from citations.extraction import extract_citations

KNOWN = [f"S{i}" for i in range(1, 6)]

quotes = st.text(
    alphabet=st.characters(
        codec="utf-8", categories=("L", "N", "P", "Zs"), exclude_characters="[]"
    ),
    min_size=1,
    max_size=80,
).map(lambda q: " ".join(q.split()))


@given(
    answer=st.text(max_size=120),
    cited=st.lists(
        st.tuples(
            st.sampled_from(KNOWN), quotes, st.sampled_from(["answers", "related"])
        ),
        max_size=6,
    ),
)
def test_each_quote_sits_in_the_text_at_its_offsets_with_its_rating(answer, cited):
    structured = StructuredAnswer.of(
        {
            "answer": answer,
            "citations": [
                {"source": r, "quote": q, "relevance": label} for r, q, label in cited
            ],
            "not_found": False,
        }
    )
    rendered = render(structured, known_refs=KNOWN)
    text = rendered.extraction.answer
    quoted = [c for c in rendered.extraction.candidates if c.kind == "quote_pair"]
    mine = [c for c in structured.citations if c.quote]
    assert len(quoted) >= len(mine)
    for c in mine:
        hits = [
            q
            for q in quoted
            if q.ref == c.ref
            and q.quote == c.quote
            and text[q.answer_start + 1 : q.answer_end - 1] == c.quote
        ]
        assert hits, (c, text)
        assert rendered.relevance_of(c.ref, c.quote) in {"answers", "related"}


def test_the_rendered_text_reads_back_as_the_same_citations():
    structured = StructuredAnswer.of(
        {
            "answer": "Thirty days [S1].",
            "citations": [
                {
                    "source": "S1",
                    "quote": "within thirty (30) days",
                    "relevance": "answers",
                },
                {"source": "s2", "quote": 'the "Term" ends', "relevance": "related"},
                {"source": "S3", "quote": "", "relevance": "related"},
                {"source": "Section 9", "quote": "made up", "relevance": "answers"},
            ],
            "not_found": False,
        }
    )
    rendered = render(structured, known_refs=KNOWN)
    text = rendered.extraction.answer
    assert text == (
        "Thirty days [S1].\n\n"
        "The documents say:\n"
        '"within thirty (30) days" (Source: [S1])\n'
        '"made up" (Source: [Section 9])\n\n'
        "Related passages:\n"
        '“the "Term" ends” (Source: [S2])\n\n'
        "Cited without a quote: [S3]"
    )
    again = {
        (c.ref, c.quote) for c in extract_citations(text, known_refs=KNOWN).candidates
    }
    assert {("S1", "within thirty (30) days"), ("S2", 'the "Term" ends')} <= again
    refs = [(c.ref, c.quote) for c in rendered.extraction.candidates]
    assert ("Section 9", "made up") in refs  # kept: out of provenance when stored
    assert ("S3", None) in refs
    assert rendered.relevance_of("S3", None) == "related"
    # The lead-ins are not claims; the answer's sentence cites S1.
    claims = [s for s in answer_sentences(text) if s.claim]
    assert all("Cited without" not in text[s.start : s.end] for s in claims)


def test_flags():
    quoting = StructuredAnswer.of(
        {
            "answer": "",
            "citations": [{"source": "S1", "quote": "x", "relevance": "answers"}],
            "not_found": True,
        }
    )
    assert quoting.contradiction and not quoting.silent
    silent = StructuredAnswer.of({"answer": "", "citations": [], "not_found": True})
    assert silent.silent and not silent.contradiction and not silent.empty
    assert StructuredAnswer.of(
        {"answer": "", "citations": [], "not_found": False}
    ).empty
