"""A document prepared for repeated quote searches, cached per text.

Folding a 1 MB document and indexing its words costs ~100-300 ms in Python;
searching a prepared one costs well under a millisecond. Verification runs
many quotes against the same revision (one message cites a source several
times; re-verification walks every citation of a document), so prepared
documents are kept in a small LRU bounded by total characters.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field

from citations.cascade.folding import OCR_SAME_LENGTH, Folded, fold, ocr_skeleton

_WORD = re.compile(r"\w+")

# Bounded by characters, not entries: one 5 MB revision must not pin 50 more.
CACHE_MAX_CHARS = 24_000_000
CACHE_MAX_ENTRIES = 64


@dataclass(eq=False)
class PreparedText:
    """`skeleton` is the folded text with same-length OCR confusions collapsed
    (l/1/i, o/0); it shares every offset with `folded.text`."""

    text: str
    folded: Folded
    skeleton: str
    _bigrams: dict[str, list[int]] | None = field(default=None, repr=False)
    _words: Counter[str] | None = field(default=None, repr=False)
    _vocabulary: dict[str, int] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def indexed(self) -> bool:
        return self._bigrams is not None

    def bigram_postings(self, key: str) -> list[int]:
        """Skeleton offsets where the word pair `key` ("a b") starts."""
        index = self._bigrams
        if index is None:
            with self._lock:
                if self._bigrams is None:
                    self._bigrams, self._words = _index_bigrams(self.skeleton)
                index = self._bigrams
        return index.get(key, _EMPTY)

    @property
    def vocabulary(self) -> dict[str, int]:
        """Full OCR skeleton of each word -> how often the document uses it
        (lexicon.py tells damaged words from the document's own words)."""
        vocabulary = self._vocabulary
        if vocabulary is None:
            self.bigram_postings("")
            vocabulary = {}
            for word, count in (self._words or {}).items():
                key = ocr_skeleton(word)
                vocabulary[key] = vocabulary.get(key, 0) + count
            self._vocabulary = vocabulary
        return vocabulary


_EMPTY: list[int] = []


def _index_bigrams(skeleton: str) -> tuple[dict[str, list[int]], Counter[str]]:
    # Word pairs rather than single words: in boilerplate or low-entropy text
    # every single word is common, pairs stay selective, and at 5% OCR noise
    # about half the pairs of a quote survive intact, which is plenty.
    index: dict[str, list[int]] = {}
    previous: str | None = None
    previous_start = 0
    words: Counter[str] = Counter()
    for m in _WORD.finditer(skeleton):
        word = m.group()
        words[word] += 1
        if previous is not None:
            key = f"{previous} {word}"
            postings = index.get(key)
            if postings is None:
                index[key] = [previous_start]
            else:
                postings.append(previous_start)
        previous = word
        previous_start = m.start()
    return index, words


def word_bigrams(skeleton: str) -> list[tuple[int, str]]:
    """(offset, "a b") for consecutive word pairs, as indexed."""
    words = [(m.start(), m.group()) for m in _WORD.finditer(skeleton)]
    return [(a[0], f"{a[1]} {b[1]}") for a, b in itertools.pairwise(words)]


class _Cache:
    def __init__(self) -> None:
        self._entries: OrderedDict[str, PreparedText] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, text: str) -> PreparedText:
        with self._lock:
            hit = self._entries.get(text)
            if hit is not None:
                self._entries.move_to_end(text)
                return hit
        folded = fold(text)
        prepared = PreparedText(
            text=text, folded=folded, skeleton=folded.text.translate(OCR_SAME_LENGTH)
        )
        if len(text) > CACHE_MAX_CHARS:
            return prepared
        with self._lock:
            if text not in self._entries:
                self._entries[text] = prepared
                self._chars += len(text)
                while (
                    self._chars > CACHE_MAX_CHARS
                    or len(self._entries) > CACHE_MAX_ENTRIES
                ):
                    _, evicted = self._entries.popitem(last=False)
                    self._chars -= len(evicted.text)
            return self._entries[text]

    def peek(self, text: str) -> PreparedText | None:
        with self._lock:
            return self._entries.get(text)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0


_cache = _Cache()


def prepare(text: str) -> PreparedText:
    """The prepared form of `text`, from the cache when it was seen recently."""
    return _cache.get(text)


def cached(text: str) -> PreparedText | None:
    """The prepared form of `text` if it is cached; never prepares it."""
    return _cache.peek(text)


def clear_cache() -> None:
    """Forget prepared documents (benchmarks use it to measure cold runs)."""
    _cache.clear()
