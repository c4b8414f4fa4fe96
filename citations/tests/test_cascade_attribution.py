"""Mis-attribution: a real quote cited to the wrong source is reported."""

from __future__ import annotations

from citations.cascade import SourceText, verify_cited_quote

S1 = SourceText(
    "S1", "The Licensee shall pay royalties of 8% of Net Sales each quarter."
)
S3 = SourceText(
    "S3", "Either party may terminate this Agreement on ninety (90) days' notice."
)


def test_a_quote_found_in_the_cited_source_verifies():
    verdict = verify_cited_quote(
        "pay royalties of 8% of Net Sales", cited=S1, others=[S3]
    )
    assert verdict.verified and verdict.found_in is None


def test_a_quote_from_another_source_is_mis_attributed_not_re_pointed():
    verdict = verify_cited_quote(
        "Either party may terminate this Agreement on ninety (90) days' notice",
        cited=S1,
        others=[S3],
    )
    assert not verdict.verified
    assert verdict.method == "failed" and verdict.start is None
    assert verdict.found_in == "S3"
    assert verdict.reason == "mis-attributed: quote found in S3, not in cited S1"


def test_a_damaged_quote_from_another_source_is_mis_attributed_too():
    verdict = verify_cited_quote(
        "Either party may terminate this  agreement on ninety (90) days’ notice",
        cited=S1,
        others=[S3],
    )
    assert verdict.found_in == "S3"


def test_a_quote_found_nowhere_fails_plainly():
    verdict = verify_cited_quote(
        "The Licensor may audit the books annually", cited=S1, others=[S3]
    )
    assert not verdict.verified and verdict.found_in is None


def test_another_chunk_of_the_same_document_is_not_a_mis_attribution():
    text = S1.text + " " + S3.text
    cited = SourceText("S1", text, within=(0, len(S1.text)))
    other = SourceText("S2", text, within=(len(S1.text) + 1, len(text)))
    verdict = verify_cited_quote(
        "may terminate this Agreement", cited=cited, others=[other]
    )
    assert verdict.verified
    assert "S2" in verdict.reason
