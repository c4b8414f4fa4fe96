"""How a citation's verdict is shown: one place for badge classes and labels,
used by the chat page, the review tab and exports."""

from __future__ import annotations

from dataclasses import dataclass

from citations.models import Method, Status


@dataclass(frozen=True)
class BadgeState:
    css: str
    label: str
    icon: str


def badge_state(status: str, method: str | None) -> BadgeState:
    if status == Status.VERIFIED:
        if method == Method.EXACT:
            return BadgeState("verified", "Verified: exact quote", "✓")
        if method == Method.TOLERANT:
            return BadgeState("tolerant", "Verified: tolerant match", "✓")
        return BadgeState("judged", "Supported: judged by model", "≈")
    if status == Status.FAILED:
        return BadgeState("failed", "Not verified: quote not found in the source", "✗")
    if status == Status.PENDING:
        return BadgeState("pending", "Verifying…", "…")
    if status == Status.OUT_OF_PROVENANCE:
        return BadgeState(
            "oop", "Not verified: cites a source that was not provided", "!"
        )
    return BadgeState("unverified", "Unverified: no quote to check", "?")


def footnote_text(
    *,
    number: int,
    title: str | None,
    page: int | None,
    quote: str,
    status: str,
    method: str | None,
) -> str:
    where = title or "unknown source"
    if page:
        where += f", p. {page}"
    quoted = f' "{quote}"' if quote else ""
    return f"{where}:{quoted} ({badge_state(status, method).label})"
