"""Page furniture: a quote may cross a page break, never read its header or
footer as text (furniture.py)."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.furniture import furniture, furniture_difference

BODY = (
    "This part of the report, {n}, sets out the scope of the engagement and "
    "the responsibilities of management for the financial statements.\n"
)
WORDS = ["first", "second", "third", "fourth", "fifth", "sixth"]
HEADER = "Independent Auditor's Report   Page {n}\n"
ENDS = {
    2: "The Company shall pay the fees of the\n",
    3: "Company's counsel within thirty days of the invoice.\n",
}


def _paginated(pages: int = 6, footer: str = "") -> tuple[str, list[int]]:
    texts = []
    for n in range(1, pages + 1):
        body = "".join(
            BODY.format(n=f"page {WORDS[n % 6]} line {WORDS[k]}") for k in range(6)
        )
        texts.append(HEADER.format(n=n) + body + ENDS.get(n, "") + footer)
    starts = [0]
    for page in texts[:-1]:
        starts.append(starts[-1] + len(page))
    return "".join(texts), starts


TEXT, STARTS = _paginated()


def test_running_header_and_page_numbers_are_furniture():
    lines = {" ".join(TEXT[a:b].split()) for a, b in furniture(TEXT, tuple(STARTS))}
    assert lines == {f"Independent Auditor's Report Page {n}" for n in range(1, 7)}
    footed, starts = _paginated(footer="- 7 -\n")
    assert "- 7 -" in {
        " ".join(footed[a:b].split()) for a, b in furniture(footed, tuple(starts))
    }


@pytest.mark.parametrize(
    "quote",
    [
        # The body's last words run into the next page's header.
        "shall pay the fees of the Independent Auditor",
        "The Company shall pay the fees of the Independent Auditor's Report",
        # The whole header, but the quote ends in it.
        "The Company shall pay the fees of the Independent Auditor's Report Page 3",
        # Part of the header, run into the body after it.
        "Auditor's Report Page 3 This part of the report, page fourth line first,",
    ],
)
def test_quote_reading_a_header_as_text_fails(quote):
    verdict = verify_quote(TEXT, quote, page_starts=STARTS)
    assert not verdict.verified
    assert "page header or footer" in verdict.reason
    assert "Independent Auditor's Report Page 3" in verdict.reason
    # Without its pages the text cannot tell furniture from body.
    assert verify_quote(TEXT, quote).verified


@pytest.mark.parametrize(
    "quote",
    [
        "Independent Auditor's Report   Page 3",
        "This part of the report, page fourth line first, sets out the scope of the engagement",
        "shall pay the fees of the",
        # Copied as extracted, the whole header in view between body text.
        "the fees of the Independent Auditor's Report Page 3 This part of the report, page fourth line first,",
    ],
)
def test_the_header_alone_the_body_alone_or_both_copied_whole_verify(quote):
    assert verify_quote(TEXT, quote, page_starts=STARTS).verified


def test_a_quote_skipping_the_header_is_not_refused_for_it():
    # Across the page break the quote leaves the header out: no furniture read.
    start = TEXT.index("The Company shall pay")
    end = TEXT.index("the invoice.") + len("the invoice.")
    quote = (
        "The Company shall pay the fees of the "
        + TEXT[TEXT.index("This part of the report, page fourth") : end]
    )
    assert furniture_difference(TEXT, start, end, quote, STARTS) is None


def test_a_quote_of_furniture_alone_across_pages_verifies():
    # Pages that hold nothing but their numbers (found by the property test
    # of prefixed texts): the quote reads no body text at all.
    text = "0000000\f0"
    verdict = verify_quote(text, text)
    assert verdict.verified, verdict.reason
    assert (verdict.start, verdict.end) == (0, len(text))


def test_form_feeds_mark_pages_when_no_offsets_are_given():
    text = "\f".join(
        HEADER.format(n=n) + BODY.format(n=n) + ENDS.get(n, "") for n in range(1, 6)
    )
    verdict = verify_quote(text, "shall pay the fees of the Independent Auditor")
    assert not verdict.verified
    assert "page header or footer" in verdict.reason


def test_headings_that_open_some_pages_are_not_furniture():
    pages = []
    for n in range(1, 11):
        heading = f"ARTICLE {n}\n" if n % 3 == 0 else ""
        pages.append(heading + BODY.format(n=WORDS[n % 6]) * 8)
    text = "".join(pages)
    starts = [0]
    for page in pages[:-1]:
        starts.append(starts[-1] + len(page))
    assert furniture(text, tuple(starts)) == ()
