"""Mis-attribution: a quote that is real, but not in the source it cites.

The model cited S1 and the words are in S3: that is a failure to report, not
a citation to re-point silently (SPEC §3), because the answer's claim about
S1 is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from citations.cascade.judging import Judge
from citations.cascade.verdict import DIFFERS, Verdict, failed
from citations.cascade.verify import verify_quote


@dataclass(frozen=True)
class SourceText:
    """One retrieved source: its ref label ("S1"), its document text, the
    chunk's [start, end) in that text, and the text's page start offsets."""

    label: str
    text: str
    within: tuple[int, int] | None = None
    page_starts: Sequence[int] | None = None


def _inside(verdict: Verdict, source: SourceText) -> bool:
    return (
        source.within is not None
        and verdict.start is not None
        and verdict.end is not None
        and source.within[0] <= verdict.start
        and verdict.end <= source.within[1]
    )


def verify_cited_quote(
    quote: str,
    *,
    cited: SourceText,
    others: Sequence[SourceText] = (),
    judge: Judge | None = None,
    ensemble: Sequence[Judge] = (),
    quorum: int = 2,
    high_stakes: bool = False,
) -> Verdict:
    """verify_quote against the cited source, then check the other sources.

    Stages 1-2 run against `cited`; if they fail and the quote verifies
    (stages 1-2) against another source, the verdict is failed with
    `found_in` naming it. Judges run on the cited source only after that.
    """
    own = verify_quote(
        cited.text, quote, within=cited.within, page_starts=cited.page_starts
    )
    if own.verified:
        if cited.within is not None and not _inside(own, cited):
            # Another chunk of the same document: the document is right, so it
            # stays verified, but the reason says whose passage it is in.
            holder = next(
                (o.label for o in others if o.text == cited.text and _inside(own, o)),
                None,
            )
            if holder:
                return replace(
                    own, reason=f"{own.reason} (in the passage given as {holder})"
                )
        return own
    for other in others:
        if other.label == cited.label or other.text == cited.text:
            continue
        elsewhere = verify_quote(
            other.text, quote, within=other.within, page_starts=other.page_starts
        )
        # attribution.elsewhere is decided here, not by a table's row: it is
        # the outcome of verifying the quote in the other sources, the whole
        # cascade run again, not a check of one passage.
        if elsewhere.verified:
            return failed(
                f"mis-attributed: quote found in {other.label}, not in cited {cited.label}",
                stages=(
                    *own.stages,
                    {
                        "stage": "attribution",
                        "outcome": "found elsewhere",
                        "detail": other.label,
                        "rule": "attribution.elsewhere",
                    },
                ),
                text=cited.text,
                # The cited source's own passage, when it located one.
                candidate=(own.candidate_start, own.candidate_end)
                if own.failure_kind == DIFFERS
                and own.candidate_start is not None
                and own.candidate_end is not None
                else None,
                score=own.score,
                found_in=other.label,
                page_starts=cited.page_starts,
                rule="attribution.elsewhere",
            )
    if judge is None and not (high_stakes and ensemble):
        return own
    return verify_quote(
        cited.text,
        quote,
        within=cited.within,
        page_starts=cited.page_starts,
        judge=judge,
        ensemble=ensemble,
        quorum=quorum,
        high_stakes=high_stakes,
    )
