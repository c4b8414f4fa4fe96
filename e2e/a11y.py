"""axe-core in the browser tests: run it on the page as it stands and report
the serious and critical violations.

axe-core comes from npm into e2e/axe/node_modules (`make test` runs `npm ci`
there). Without it, the checks skip with a reason, as browser tests do
without chromium. The script is evaluated through the DevTools protocol, so
the page's CSP (scripts from our origin only) stays as it is for the page.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

AXE_JS = (
    Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
)
BLOCKING = ("serious", "critical")
# WCAG 2.0-2.2 A and AA, plus axe's best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


@cache
def _axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def axe_violations(page, *, impacts: tuple[str, ...] = BLOCKING) -> list[dict]:
    """The page's violations of those impacts, each with its rule, impact,
    help text and up to three offending nodes (their selectors and HTML)."""
    if not AXE_JS.exists():
        pytest.skip(
            "axe-core is not installed: run `npm ci` in e2e/axe (make test does)"
        )
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source())
    result = page.evaluate(
        """async (tags) => {
            const r = await axe.run(document, {runOnly: {type: 'tag', values: tags},
                                                resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => ({target: n.target.join(' '),
                    html: n.html.slice(0, 200), summary: n.failureSummary}))}));
        }""",
        TAGS,
    )
    return [v for v in result if v["impact"] in impacts]


def describe(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} — {v['help']}")
        lines += [f"    {n['target']}: {n['html']}" for n in v["nodes"]]
    return "\n".join(lines)
