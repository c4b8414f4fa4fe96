"""Template helpers for the grid: a cell's citation badge and its marks."""

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


@register.filter
def cell_marks(cell) -> dict:
    """What a grid cell shows beside its value: the citation badge (never a
    verified tick for a value its quote does not support), unsupported,
    stale."""
    citation = getattr(cell, "citation", None)
    unsupported = cell.status == "done" and cell.shown_support == "unsupported"
    return {
        "badge": citation_badge(citation) if citation is not None else None,
        "unsupported": unsupported,
        "support_reason": cell.edited_support_reason
        if cell.is_edited
        else cell.support_reason,
        "stale": bool(citation is not None and citation.is_stale),
    }


@register.filter
def words(name: str) -> str:
    """A rule or label name in words: "governing_law_clause" -> "governing law clause"."""
    return str(name or "").replace("_", " ")
