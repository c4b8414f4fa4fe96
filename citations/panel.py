"""The citation panel: what one citation's detail shows, wherever it opens.

Chat's citation panel, the review tab's slide-over, the admin's change page and
a tabular cell's panel all render `citations/_citation_panel.html` (or its body,
`citations/_citation_detail.html`) from the context built here, so a citation
reads the same everywhere. `word_diff` and `context_window` are pure.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from citations.marks import citation_mark
from citations.models import MessageCitation, Status, UnsourcedCitation
from citations.presentation import badge_state, citation_badge, match_summary
from citations.refusing_rules import rule_shown
from ingest.links import document_span_url
from ingest.models import DocumentRevision
from ingest.selectors import Span, span_locations

VERIFICATIONS_SHOWN = 10


@dataclass(frozen=True)
class DiffPart:
    op: str  # "equal" | "insert" (in quote only) | "delete" (in source only)
    text: str


def word_diff(quote: str, source: str) -> list[DiffPart]:
    """Word-level diff of the model's quote against the document's text."""
    a, b = quote.split(), source.split()
    parts: list[DiffPart] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=a, b=b, autojunk=False
    ).get_opcodes():
        if op == "equal":
            parts.append(DiffPart("equal", " ".join(a[i1:i2])))
            continue
        if op in {"replace", "delete"}:
            parts.append(DiffPart("insert", " ".join(a[i1:i2])))
        if op in {"replace", "insert"}:
            parts.append(DiffPart("delete", " ".join(b[j1:j2])))
    return parts


def context_window(
    text: str, start: int, end: int, *, around: int = 300
) -> tuple[str, str, str]:
    """(before, span, after) around a span, cut at word boundaries."""
    lo = max(0, start - around)
    hi = min(len(text), end + around)
    if lo > 0:
        space = text.find(" ", lo, start)
        lo = space + 1 if space != -1 else lo
    if hi < len(text):
        space = text.rfind(" ", end, hi)
        hi = space if space != -1 else hi
    before = ("…" if lo > 0 else "") + text[lo:start]
    after = text[end:hi] + ("…" if hi < len(text) else "")
    return before, text[start:end], after


def _other_spans(citation: MessageCitation) -> list[tuple[int, int]]:
    """The spans the same answer cites in the same document, in its order:
    the viewer lists them beside this one."""
    if not citation.message_id or not citation.document_id:
        return []
    return list(
        MessageCitation.objects.with_scope(tenant=citation.tenant_id)
        .filter(
            tenant_id=citation.tenant_id,
            message_id=citation.message_id,
            document_id=citation.document_id,
            revision_id=citation.revision_id,
        )
        .exclude(pk=citation.pk)
        # Rows of one answer are inserted together: created_at can tie, and
        # the viewer's list (cut at 19) must not follow the table's row order.
        .order_by("answer_start", "created_at", "source_offset_start", "id")
        .values_list("source_offset_start", "source_offset_end")[:19]
    )


def _location(citation: MessageCitation) -> dict[str, Any] | None:
    """Where the passage is in its source's own words ("#deals · Ana Ruiz ·
    3 Mar 2026 14:02 UTC", "contracts · row 1182 · notice_period", a
    page's title and address); None for a page of a PDF, which the
    Document line already gives."""
    if not citation.chunk_id:
        return None
    start = (
        citation.source_offset_start if citation.verified else citation.candidate_start
    )
    end = citation.source_offset_end if citation.verified else citation.candidate_end
    span = Span(citation.chunk_id, start, end)
    found = span_locations(tenant_id=citation.tenant_id, spans=[span]).get(span)
    if found is None or found.kind in {"page", "document"} or not found.label:
        return None
    return found.as_dict()


def citation_panel_context(citation: MessageCitation) -> dict[str, Any]:
    """What the panel shows of a stored citation."""
    revision = DocumentRevision.objects.filter(pk=citation.revision_id).first()
    before = span = after = ""
    if revision is not None:
        before, span, after = context_window(
            revision.normalized_content,
            citation.source_offset_start,
            citation.source_offset_end,
        )
    compare = (
        citation.source_text if citation.verified else (citation.candidate_text or "")
    )
    diff = None
    if citation.quoted_text and compare and citation.quoted_text != compare:
        diff = word_diff(citation.quoted_text, compare)
    document_url = ""
    if citation.document_id:
        document_url = document_span_url(
            citation.document_id,
            citation.source_offset_start,
            citation.source_offset_end,
            others=_other_spans(citation),
        )
    return {
        "c": citation,
        "location": _location(citation),
        "badge": citation_badge(citation),
        "mark": citation_mark(citation),
        "match": match_summary(citation),
        # The rule that refused it, named by the rule table.
        "rule": rule_shown(citation.rule),
        "before": before,
        "span": span,
        "after": after,
        "diff": diff,
        "document_url": document_url,
        "verifications": list(citation.verifications.all()[:VERIFICATIONS_SHOWN]),
        # The reviewer's word beside the machine's (the badge already shows it).
        "review": citation.reviews.select_related("reviewer")
        .order_by("-created_at", "-id")
        .first(),
    }


def unsourced_panel_context(unsourced: UnsourcedCitation) -> dict[str, Any]:
    """What the panel shows of a reference to a source the model was never given."""
    return {
        "unsourced": unsourced,
        "badge": badge_state(Status.OUT_OF_PROVENANCE, None),
    }
