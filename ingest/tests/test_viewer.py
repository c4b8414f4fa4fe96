"""The document viewer (issue 26 item 1): its address (spans, page, zoom),
one page's text cut at the spans, a PDF page at a time with every page of a
span outlined, the citation's other spans, and the page image's scales."""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from docuiq.testing import pdfgen
from docuiq.testing.factories import make_document
from ingest.links import document_span_url
from ingest.models import Document
from ingest.page_image import page_picture
from ingest.services import Upload, document_upload
from ingest.viewer import Span, page_segments, pages_of, parse_span, viewer_state

TEXT = "Page one text.\n\nPage two: the Supplier shall pay\n\nthe fees on page three."
STARTS = [0, TEXT.index("Page two"), TEXT.index("the fees")]


def test_a_span_is_read_from_start_dash_end_inside_the_text():
    assert parse_span("3-9", 20) == Span(3, 9)
    for bad in ("9-3", "3-3", "3-21", "-1-4", "a-b", "", "3", "3-"):
        assert parse_span(bad, 20) is None


def test_the_state_opens_at_the_cited_spans_page_unless_a_page_is_asked():
    start = TEXT.index("the Supplier")
    end = TEXT.index("page three")
    state = viewer_state(
        {"at": str(start), "end": str(end), "spans": "0-4,0-4,bad,5-9"},
        length=len(TEXT),
        page_starts=STARTS,
    )
    assert state.spans == [Span(start, end), Span(0, 4), Span(5, 9)]
    assert (state.page, state.zoom) == (2, "fit")
    assert list(pages_of(STARTS, state.current)) == [2, 3]
    asked = viewer_state(
        {"at": str(start), "end": str(end), "page": "3", "zoom": "150"},
        length=len(TEXT),
        page_starts=STARTS,
    )
    assert (asked.page, asked.zoom) == (3, "150")
    # Out of range or unknown: ignored, never an error.
    odd = viewer_state(
        {"at": "99999", "page": "7", "zoom": "400"},
        length=len(TEXT),
        page_starts=STARTS,
    )
    assert (odd.spans, odd.page, odd.zoom) == ([], 1, "fit")


def test_each_page_of_a_span_across_a_page_break_is_marked():
    span = Span(TEXT.index("the Supplier"), TEXT.index(" on page three"))
    marked = {
        page: "".join(
            s.text for s in page_segments(TEXT, STARTS, page, [span]) if s.mark
        )
        for page in (1, 2, 3)
    }
    assert marked[1] == ""
    assert marked[2].startswith("the Supplier shall pay")
    assert marked[3] == "the fees"
    first = [s for s in page_segments(TEXT, STARTS, 2, [span]) if s.starts]
    assert first[0].starts == 1 and first[0].mark == "current"


@given(
    st.lists(
        st.tuples(st.integers(0, len(TEXT)), st.integers(0, len(TEXT))), max_size=4
    ),
    st.integers(1, 3),
)
def test_a_pages_segments_are_its_text_whatever_the_spans(pairs, page):
    spans = [Span(min(a, b), max(a, b)) for a, b in pairs if a != b]
    segments = page_segments(TEXT, STARTS, page, spans)
    lo = STARTS[page - 1]
    hi = STARTS[page] if page < len(STARTS) else len(TEXT)
    assert "".join(s.text for s in segments) == TEXT[lo:hi]
    for s in segments:
        assert s.mark in {"", "current", "other"}
    # The current span's mark covers exactly its part of the page.
    if spans:
        current = "".join(s.text for s in segments if s.mark == "current")
        a, b = max(lo, spans[0].start), min(hi, spans[0].end)
        # (blank edges stay unmarked)
        assert "".join(current.split()) == ("".join(TEXT[a:b].split()) if a < b else "")


def test_an_outline_is_one_stroke_per_line_of_glyphs():
    from ingest.page_image import _merge_lines

    line = [
        (10, 100, 16, 110),
        (16, 102, 21, 110),
        (21, 101, 25, 113),
        (28, 100, 34, 110),
    ]
    below = [(10, 114, 16, 124), (17, 116, 22, 124)]
    column = [(300, 100, 306, 110)]
    rects = _merge_lines(line + below + column)
    assert [(r.x, r.y, r.width, r.height) for r in rects] == [
        (9, 99, 26, 15),
        (299, 99, 8, 12),
        (9, 113, 14, 12),
    ]


def test_a_span_link_carries_the_citations_other_spans():
    url = document_span_url(
        "5a844354-369c-4379-bd0f-01442dab6113",
        10,
        20,
        others=[(30, 40), (10, 20), (30, 40), (5, 5)],
    )
    assert url.endswith("?at=10&end=20&spans=30-40#at")


# ---------------------------------------------------------------- pages


@pytest.fixture
def contract(tenant_a, tmp_path, django_capture_on_commit_callbacks):
    path = pdfgen.text_pages_pdf(
        tmp_path / "lease.pdf",
        {
            1: "Office Lease\nBetween Acme and Beta.",
            2: "Rent.\nThe Tenant shall pay the monthly rent of USD 12,500",
            3: "on the first day of each month.\nTermination.",
            4: "Signatures.",
        },
    )
    with django_capture_on_commit_callbacks(execute=True), path.open("rb") as f:
        document = document_upload(
            tenant=tenant_a, upload=Upload(filename="lease.pdf", stream=f)
        )
    with tenant_scope(tenant_a):
        document = Document.objects.select_related("current_revision").get(
            pk=document.pk
        )
    assert document.status == "ready", document.error
    return document


def _across(document):
    text = document.current_revision.normalized_content
    start = text.index("The Tenant shall pay")
    end = text.index("each month.") + len("each month.")
    return start, end


@pytest.mark.django_db
def test_a_quote_across_a_page_break_is_outlined_on_both_pages(tenant_a, contract):
    start, end = _across(contract)
    with tenant_scope(tenant_a):
        revision = contract.current_revision
        on_2 = page_picture(revision, 2, [(start, end)])
        on_3 = page_picture(revision, 3, [(start, end)])
        on_4 = page_picture(revision, 4, [(start, end)])
    assert on_2.current and on_3.current and not on_4.current
    assert on_2.width > 500 and on_2.height > 700  # points


@pytest.mark.django_db
def test_the_viewer_opens_at_the_spans_first_page_and_says_it_continues(
    alice_client, contract
):
    start, end = _across(contract)
    other = contract.current_revision.normalized_content.index("Signatures")
    url = document_span_url(contract.pk, start, end, others=[(other, other + 10)])
    html = alice_client.get(url).content.decode()
    assert "Page 2 as printed" in html
    assert 'class="span-box span-box--current"' in html
    assert 'data-testid="continues"' in html and "page=3" in html
    assert html.count('data-testid="span-link"') == 2
    assert "?scale=2" in html  # the image for the fit zoom
    # Page 3 from the toolbar: the rest of the quote, outlined and marked.
    html3 = alice_client.get(url.replace("#at", "") + "&page=3").content.decode()
    assert "Page 3 as printed" in html3
    assert 'class="span-box span-box--current"' in html3
    assert (
        '<mark id="at" class="span-highlight">on the first day of each month.' in html3
    )
    zoomed = alice_client.get(url.replace("#at", "") + "&zoom=150").content.decode()
    assert (
        "?scale=3" in zoomed and 'aria-current="true" data-testid="zoom-150"' in zoomed
    )


@pytest.mark.django_db
def test_the_page_image_renders_at_the_viewers_scales_only(alice_client, contract):
    base = reverse("ingest:document-page-image", args=[contract.pk, 2])
    small = alice_client.get(base)
    sharp = alice_client.get(base + "?scale=3")
    odd = alice_client.get(base + "?scale=40")
    assert small["Content-Type"] == sharp["Content-Type"] == "image/png"
    assert len(sharp.content) > len(small.content)
    assert odd.content == small.content  # an unknown scale is the default
    assert (
        alice_client.get(
            reverse("ingest:document-page-image", args=[contract.pk, 9])
        ).status_code
        == 404
    )


@pytest.mark.django_db
def test_a_text_document_opens_at_the_span_with_its_other_spans_anchored(
    alice_client, tenant_a
):
    document = make_document(
        tenant_a, ["First page.", "Second page: the cited clause. And another."]
    )
    text = document.current_revision.normalized_content
    a, b = text.index("the cited clause"), text.index("another")
    html = alice_client.get(
        document_span_url(document.pk, a, a + 16, others=[(b, b + 7)])
    ).content.decode()
    assert '<mark id="at" class="span-highlight">the cited clause</mark>' in html
    assert 'id="span-2" class="span-highlight span-highlight--other">another' in html
    assert 'href="#span-2"' in html
    assert "printed-page" not in html and "zoom-150" not in html
