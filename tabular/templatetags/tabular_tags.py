"""Template helpers for the grid: a cell's citation badge and confidence label."""

from __future__ import annotations

from django import template

from citations.presentation import BadgeState, citation_badge

register = template.Library()


@register.filter
def cell_badge(cell) -> BadgeState | None:
    """The cell citation's badge (verified, tolerant, failed, pending…), or None."""
    citation = getattr(cell, "citation", None)
    if citation is None:
        return None
    return citation_badge(citation)
