"""`{% document_citations document %}`: a document page's citations summary
(seed 003, "document preview integration").

It lives here so ingest never imports citations: the document page only
loads this library and calls the tag.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.http import urlencode

from citations.presentation import citation_badge
from citations.reviews import citation_stat_cards, with_latest_review
from citations.selectors import CitationFilters, citation_list
from ingest.links import document_span_url

register = template.Library()

RECENT = 5


@register.inclusion_tag("citations/_document_citations.html", takes_context=True)
def document_citations(context: template.Context, document: Any) -> dict:
    request = context.get("request")
    tenant = getattr(request, "tenant", None)
    if tenant is None or document is None or document.tenant_id != tenant.pk:
        return {"show": False}
    filters = CitationFilters(document_id=document.pk)
    cards = [
        c
        for c in citation_stat_cards(tenant=tenant, filters=filters)
        if c.key != "out_of_provenance"
    ]
    recent = list(
        with_latest_review(
            citation_list(tenant=tenant, filters=filters), tenant=tenant
        )[:RECENT]
    )
    is_staff = bool(request.user.is_authenticated and request.user.is_staff)
    return {
        "show": True,
        "document": document,
        "total": cards[0].count,
        "cards": cards[1:],
        "recent": [
            {
                "c": c,
                "badge": citation_badge(c),
                "span_url": document_span_url(
                    document.pk, c.source_offset_start, c.source_offset_end
                ),
                "review_url": reverse("citations:detail", args=[c.pk])
                if is_staff
                else "",
            }
            for c in recent
        ],
        "review_all_url": (
            reverse("citations:review")
            + "?"
            + urlencode({"document_id": str(document.pk)})
            if is_staff
            else ""
        ),
    }
