"""Links into the document viewer (ingest.views.document_detail)."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlencode

from django.urls import reverse

from ingest.viewer import MAX_SPANS


def document_span_url(
    document_id: object,
    start: int,
    end: int,
    *,
    others: Iterable[tuple[int, int]] = (),
) -> str:
    """The viewer opened at content[start:end], highlighted and scrolled to;
    `others` are the same citation's (or answer's) other spans in this
    document, reachable from the viewer."""
    base = reverse("ingest:document-detail", args=[document_id])
    query: dict[str, object] = {"at": start, "end": end}
    rest = []
    for s, e in others:
        if e > s and (s, e) != (start, end) and f"{s}-{e}" not in rest:
            rest.append(f"{s}-{e}")
    if rest:
        query["spans"] = ",".join(rest[: MAX_SPANS - 1])
    return f"{base}?{urlencode(query)}#at"
