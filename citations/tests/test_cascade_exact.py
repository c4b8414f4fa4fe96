"""Stage 1 and the verdict's contract: offsets, pages, the cited chunk."""

from __future__ import annotations

from citations.cascade import verify_quote

CONTRACT = (
    "1. Delivery. The Supplier shall deliver the Goods within 30 days of the Order Date.\n"
    "2. Assignment. The Buyer may not assign this Agreement without prior written consent.\n"
    "3. Payment. Invoices are payable within thirty (30) days of receipt.\n"
)


def test_verbatim_quote_is_an_exact_match_with_its_own_offsets():
    quote = "The Supplier shall deliver the Goods within 30 days"
    verdict = verify_quote(CONTRACT, quote)
    assert verdict.verified
    assert (verdict.method, verdict.match_type, verdict.confidence) == (
        "exact_match",
        "exact",
        1.0,
    )
    assert verdict.start == CONTRACT.index(quote)
    assert CONTRACT[verdict.start : verdict.end] == verdict.source_text == quote


def test_the_cited_chunk_is_searched_first():
    text = "The fee is due. " * 3
    chunk = (16, 32)
    verdict = verify_quote(text, "The fee is due.", within=chunk)
    assert (verdict.start, verdict.end) == (16, 31)
    assert "in the cited chunk" in verdict.reason


def test_a_match_outside_the_cited_chunk_still_verifies_and_says_so():
    chunk_end = CONTRACT.index("2.")
    verdict = verify_quote(CONTRACT, "The Buyer may not assign", within=(0, chunk_end))
    assert verdict.verified
    assert verdict.start > chunk_end
    assert "outside the cited chunk" in verdict.reason


def test_page_comes_from_the_page_starts():
    pages = [0, CONTRACT.index("2."), CONTRACT.index("3.")]
    verdict = verify_quote(
        CONTRACT, "payable within thirty (30) days", page_starts=pages
    )
    assert verdict.page == 3
    assert verify_quote(CONTRACT, "1. Delivery", page_starts=pages).page == 1
    assert verify_quote(CONTRACT, "1. Delivery").page is None


def test_empty_and_whitespace_quotes_fail_with_a_reason():
    for quote in ("", "   ", "\n\t"):
        verdict = verify_quote(CONTRACT, quote)
        assert not verdict.verified
        assert verdict.method == "failed" and verdict.match_type == "not_found"
        assert verdict.confidence is None and verdict.start is None
        assert verdict.rule == "input.empty", verdict.reason


def test_quote_longer_than_the_text_fails():
    verdict = verify_quote("short text", "short text and then some more")
    assert not verdict.verified
    assert verdict.rule == "input.too_long", verdict.reason


def test_quote_at_the_very_end_of_the_text():
    verdict = verify_quote(CONTRACT, "days of receipt.\n")
    assert verdict.verified and verdict.end == len(CONTRACT)


def test_offsets_are_code_points_even_after_emoji():
    text = "👩‍⚖️ Counsel notes: the Licensee shall pay royalties quarterly."
    verdict = verify_quote(text, "the Licensee shall pay royalties quarterly")
    assert verdict.start == text.index("the Licensee")
    assert text[verdict.start : verdict.end] == verdict.source_text


def test_a_bad_within_is_ignored_rather_than_trusted():
    for within in ((50, 10), (-5, 10_000), (3, 3)):
        verdict = verify_quote(CONTRACT, "The Buyer may not assign", within=within)
        assert verdict.verified
        assert CONTRACT[verdict.start : verdict.end] == verdict.source_text


def test_as_dict_has_the_verify_quotes_fields():
    verdict = verify_quote(CONTRACT, "1. Delivery")
    assert set(verdict.as_dict()) == {
        "verified",
        "method",
        "match_type",
        "confidence",
        "start",
        "end",
        "page",
        "source_text",
        "reason",
        "candidate_start",
        "candidate_end",
        "candidate_page",
        "failure_kind",
        "rule",
    }
