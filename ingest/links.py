"""Links into the document viewer (ingest.views.document_detail)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse


def document_span_url(document_id: object, start: int, end: int) -> str:
    """The viewer opened at content[start:end], highlighted and scrolled to."""
    base = reverse("ingest:document-detail", args=[document_id])
    return f"{base}?{urlencode({'at': start, 'end': end})}#at"
