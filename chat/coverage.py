"""Which sentences of an answer a verified, relevant citation supports. Pure.

A lawyer reads every sentence of an answer as a claim. `answer_sentences`
splits an answer into sentences and the source refs each cites (a marker
such as "(Source: [S1])" or "[S1]" right after a sentence belongs to it);
`coverage` marks each claim `supported` (a cited source is verified and bears
on the question), `pending` (still being verified), or `unsupported`, so the
page can show uncited sentences plainly. Lead-ins ("The documents say:") and
the "Searched: ..." line of a "not found" and the "Read ..." line of what a
model read are not claims.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chat.rendering import leading_markers, marker_refs, without_markers
from lib.sentences import split_sentences

SUPPORTED = "supported"
PENDING = "pending"
UNSUPPORTED = "unsupported"
MIN_CLAIM_WORDS = 4
# What the product says about its search and reading, not claims of the
# documents: "Searched: …", "Read in full: …", "Read pages 1-3 of …".
NOT_CLAIMS = re.compile(r"Searched:|Read (?:in full:|pages? |parts |nothing of )")


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    refs: tuple[str, ...]
    claim: bool


def answer_sentences(answer: str) -> list[Sentence]:
    """The answer's sentences with the refs cited in or right after each."""
    spans = split_sentences(answer)
    sentences: list[Sentence] = []
    for start, end in spans:
        lead, taken = leading_markers(answer[start:end])
        if lead and sentences:
            # '"..." (Source: [S1]) Next sentence': the marker cites the quote.
            last = sentences[-1]
            sentences[-1] = Sentence(
                last.start,
                last.end,
                tuple(dict.fromkeys(last.refs + tuple(lead))),
                last.claim,
            )
            start += taken
            if start >= end:
                continue
        text = answer[start:end]
        refs = tuple(dict.fromkeys(marker_refs(text)))
        bare = without_markers(text)
        words = re.findall(r"\w+", bare)
        if not words and sentences:
            # A marker standing alone cites the sentence before it.
            last = sentences[-1]
            sentences[-1] = Sentence(
                last.start, end, tuple(dict.fromkeys(last.refs + refs)), last.claim
            )
            continue
        claim = (
            len(words) >= MIN_CLAIM_WORDS
            and not bare.rstrip().endswith(":")
            and not NOT_CLAIMS.match(bare.lstrip())
        )
        sentences.append(Sentence(start, end, refs, claim))
    return sentences


def coverage(
    sentences: Sequence[Sentence], support: Callable[[str], str]
) -> list[dict]:
    """Each claim's mark, from `support(ref)`: supported, pending or
    unsupported (the best of its refs; no ref is unsupported)."""
    order = {SUPPORTED: 0, PENDING: 1, UNSUPPORTED: 2}
    marks = []
    for s in sentences:
        if not s.claim:
            continue
        states = [support(ref) for ref in s.refs] or [UNSUPPORTED]
        marks.append(
            {
                "start": s.start,
                "end": s.end,
                "refs": list(s.refs),
                "status": min(states, key=lambda state: order[state]),
            }
        )
    return marks
