from __future__ import annotations

import re

# Words that carry no retrieval signal in questions; both engines would match
# them nearly everywhere, which makes OR queries slow and rankings noisy.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves tell give list show
    find please document documents say says said does""".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
MAX_TERMS = 16


def query_terms(query: str) -> list[str]:
    """Content words of a question, lower-cased, deduplicated, in order."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(query.lower()):
        word = match.group().replace("’", "'").split("'")[0]
        if len(word) < 2 and not word.isdigit():
            continue
        if word in STOPWORDS:
            continue
        seen.setdefault(word, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)
