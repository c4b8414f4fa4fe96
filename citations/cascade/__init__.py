"""The citation verification cascade: pure functions, strings in, verdicts out.

No Django here (STYLE §6: the correctness core is pure and property-tested).
Entry points: `verify_quote` for one text, `verify_cited_quote` for a quote
and the sources retrieved with it (mis-attribution).
"""

from __future__ import annotations

from citations.cascade.attribution import SourceText, verify_cited_quote
from citations.cascade.judging import Judge, JudgeResult
from citations.cascade.prepared import clear_cache
from citations.cascade.verdict import Verdict
from citations.cascade.verify import verify_quote

__all__ = [
    "Judge",
    "JudgeResult",
    "SourceText",
    "Verdict",
    "clear_cache",
    "verify_cited_quote",
    "verify_quote",
]
