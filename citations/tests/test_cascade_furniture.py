"""Page furniture: a quote may cross a page break, never read its header or
footer as text (furniture.py)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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
    assert verdict.rule == "post.page_furniture", verdict.reason
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
    assert verdict.rule == "post.page_furniture", verdict.reason


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


# --- Page furniture inside a sentence (issue 35: "war, 5 fire,") ---------------

_CLAUSE_WORDS = [
    "acts", "of", "God", "war", "fire", "flood", "epidemic", "strike", "riot",
    "embargo", "the", "Supplier", "delay", "events", "beyond", "control",
]  # fmt: skip
_PAGE_FORMS = ["{n}", "Page {n}", "- {n} -", "{n} of {total}"]


def _broken_sentence(
    head: list[str], tail: list[str], form: str, first: int, pages: int, break_at: int
) -> tuple[str, list[int], str]:
    """`pages` pages numbered from `first` in `form`; a sentence of `head`
    and `tail` words runs from page `break_at` over its footer onto the next."""
    texts = []
    for p in range(pages):
        footer = form.format(n=first + p, total=first + pages - 1)
        body = f"Clause {p + 1} sets out the duties of the parties in detail.\n"
        if p == break_at:
            body += "Neither party is liable for " + ", ".join(head) + ",\n"
        if p == break_at + 1:
            body = ", ".join(tail) + " or like causes.\n" + body
        texts.append(body + footer + "\n")
    starts = [0]
    for page in texts[:-1]:
        starts.append(starts[-1] + len(page))
    quote = "Neither party is liable for " + ", ".join(head + tail) + " or like causes."
    return "".join(texts), starts, quote


_words = st.lists(st.sampled_from(_CLAUSE_WORDS), min_size=2, max_size=5)


@settings(max_examples=60, deadline=None)
@given(
    head=_words,
    tail=_words,
    form=st.sampled_from(_PAGE_FORMS),
    first=st.integers(1, 40),
    pages=st.integers(3, 5),
    break_at=st.integers(0, 1),
)
def test_a_page_number_inside_a_sentence_never_refuses_its_quote(
    head, tail, form, first, pages, break_at
):
    text, starts, quote = _broken_sentence(head, tail, form, first, pages, break_at)
    verdict = verify_quote(text, quote, page_starts=starts)
    assert verdict.verified, verdict.reason
    # The span crosses the page number, which the quote skips.
    footer = form.format(n=first + break_at, total=first + pages - 1)
    assert footer in verdict.source_text


@settings(max_examples=60, deadline=None)
@given(
    head=_words,
    tail=_words,
    first=st.integers(1, 40),
    added=st.integers(1, 999),
    stray=st.integers(41, 999),
)
def test_a_number_that_numbers_no_page_or_that_the_quote_adds_is_refused(
    head, tail, first, added, stray
):
    text, starts, quote = _broken_sentence(head, tail, "{n}", first, 4, 1)
    # The quote adds a number where the page breaks: not the page's own (a
    # quote that copies the page number as extracted reads the source as it
    # is, furniture.furniture_difference).
    assume(added != first + 1)
    at = quote.index(", " + tail[0])
    with_number = quote[:at] + f", {added}" + quote[at:]
    assert not verify_quote(text, with_number, page_starts=starts).verified
    # A bare number where page 2's number should be counts no page: it may
    # be the body's, so a quote leaving it out is refused.
    own = f"\n{first + 1}\n"
    assume(stray != first + 1 and own in text)
    unproven = text.replace(own, f"\n{stray}\n", 1)
    moved = len(str(stray)) - len(str(first + 1))
    shifted = [s if i < 2 else s + moved for i, s in enumerate(starts)]
    verdict = verify_quote(unproven, quote, page_starts=shifted)
    assert not verdict.verified
    assert verdict.rule == "meaning.number", verdict.reason


def test_a_running_header_inside_a_sentence_never_refuses_its_quote():
    pages = [
        HEADER.format(n=n)
        + BODY.format(n=f"page {WORDS[n]}")
        + ("The Company shall pay the fees of the\n" if n == 2 else "")
        for n in range(1, 5)
    ]
    pages[2] = pages[2].replace(
        HEADER.format(n=3), HEADER.format(n=3) + "Company's counsel on demand.\n"
    )
    starts = [0]
    for page in pages[:-1]:
        starts.append(starts[-1] + len(page))
    text = "".join(pages)
    quote = "The Company shall pay the fees of the Company's counsel on demand."
    verdict = verify_quote(text, quote, page_starts=starts)
    assert verdict.verified, verdict.reason
    assert "Independent Auditor" in verdict.source_text
