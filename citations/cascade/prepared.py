"""A document prepared for repeated quote searches, cached per text.

Folding a 1 MB document and indexing its words costs ~300 ms in Python;
searching a prepared one costs well under a millisecond. Verification runs
many quotes against the same revision (one message cites a source several
times; re-verification walks every citation of a document), so prepared
documents are kept in a small LRU bounded by total characters.
"""

from __future__ import annotations

import hashlib
import itertools
import marshal
import re
import threading
import zlib
from array import array
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import add, not_
from pathlib import Path
from typing import TypeAlias

from citations.cascade import folding, lexicon
from citations.cascade.folding import OCR_SAME_LENGTH, Folded, fold, ocr_skeleton

_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"[2-9]")

# Bounded by characters, not entries: one 5 MB revision must not pin 50 more.
CACHE_MAX_CHARS = 24_000_000
CACHE_MAX_ENTRIES = 64


# Sorted skeleton offsets of one key's occurrences.
Postings: TypeAlias = "array[int]"

# A word pair found more often than this is also indexed with the words that
# follow it, one more at a time, until each longer key is this selective or
# MAX_KEY_WORDS long: in low-entropy text (a few common words) or a long
# boilerplate document every pair is everywhere, and seeding needs keys that
# are not. In contract-like prose most positions are in such pairs: indexing
# costs ~30-50% more than pairs alone (bench/verification_speed.py, cold).
# Stage 2 uses the longer keys only when every pair of a quote is too common
# (a pair survives OCR damage more often than three words do).
SELECTIVE = 256
MAX_KEY_WORDS = 3
# Numbers this long or longer are also indexed alone (see number_postings).
NUMBER_MIN_CHARS = 3


@dataclass(eq=False)
class PreparedText:
    """`skeleton` is the folded text with same-length OCR confusions collapsed
    (l/1/i, o/0); it shares every offset with `folded.text`."""

    text: str
    folded: Folded
    skeleton: str
    _keys: dict[str, Postings] | None = field(default=None, repr=False)
    _vocabulary: dict[str, int] | None = field(default=None, repr=False)
    _numbers: dict[str, tuple[int, ...]] | None = field(default=None, repr=False)
    _last_postings: tuple[tuple[object, ...], list[Postings]] | None = field(
        default=None, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def indexed(self) -> bool:
        return self._keys is not None

    def _index(self) -> dict[str, Postings]:
        index = self._keys
        if index is None:
            with self._lock:
                if self._keys is None:
                    # The vocabulary is built with the index, not on the first
                    # fuzzy match: at 5 MB it costs ~15 ms, which would land
                    # on whichever quote happened to come first.
                    keys, words, self._numbers = _index_words(self.skeleton)
                    self._vocabulary = _vocabulary(words)
                    # Likewise whether it reads as a scan (lexicon caches it).
                    lexicon.looks_scanned(self._vocabulary)
                    self._keys = keys
                index = self._keys
        return index

    def bigram_postings(self, key: str) -> Postings:
        """Skeleton offsets where the word pair `key` ("a b") starts."""
        return self._index().get(key, _EMPTY)

    def postings(
        self,
        words: Sequence[str],
        lo: int,
        hi: int,
        stop: int,
        selective: int = SELECTIVE,
    ) -> list[Postings]:
        """For each i in [lo, hi): skeleton offsets where words[i],
        words[i + 1], ... occur in a row as whole words, taking as many words
        as it needs to have at most `selective` occurrences (never fewer than
        SELECTIVE), at most MAX_KEY_WORDS and none from words[stop] on
        (hi < stop). Each list is sorted, possibly empty.

        Every occurrence of those words in the document is listed, so a
        verbatim match can be found through any one key alone (stage 1)."""
        selective = max(selective, SELECTIVE)
        # Stage 1 and the normalized search of stage 2 ask the same question
        # of one quote's words in a row, and its longer keys cost most of
        # the answer. Words come as a quote's cached tuple: identity stands
        # for equality, and a tuple cannot change after its answer was kept.
        question = (words, lo, hi, stop, selective)
        last = self._last_postings
        if last is not None and last[0][0] is words and last[0][1:] == question[1:]:
            return list(last[1])
        found = self._postings(words, lo, hi, stop, selective)
        if isinstance(words, tuple):
            self._last_postings = (question, found)
        return list(found)

    def _postings(
        self, words: Sequence[str], lo: int, hi: int, stop: int, selective: int
    ) -> list[Postings]:
        get = self._index().get
        pairs = zip(words[lo:hi], words[lo + 1 : hi + 1], strict=True)
        keys = list(map(" ".join, pairs))
        found = list(map(get, keys, repeat(_EMPTY)))
        # A frequent key was extended by every word that follows it in the
        # document, so a longer key that is missing does not occur at all.
        # Keys grow a word at a time, all of one length together: in
        # low-entropy text every key of a quote is frequent, and the
        # lookups run in C instead of a Python loop per key.
        for n in range(3, MAX_KEY_WORDS + 1):
            # Key k may take word lo + k + n - 1 only if that is before `stop`.
            room = found[: max(0, stop - lo - n + 1)]
            over = map(selective.__lt__, map(len, room))
            numbers = list(compress(range(len(room)), over))
            if not numbers:
                break
            heads = map(keys.__getitem__, numbers)
            following = map(words.__getitem__, map(add, numbers, repeat(lo + n - 1)))
            longer = list(map(" ".join, zip(heads, following, strict=True)))
            hits = map(get, longer, repeat(_EMPTY))
            for k, key, longer_hits in zip(numbers, longer, hits, strict=True):
                keys[k] = key
                found[k] = longer_hits
        return found

    def phrase_count(
        self, first: str, second: str, enough: int, *, spelled: bool = True
    ) -> int:
        """How many times the folded text writes the words `first` and
        `second` (folded) one after the other, counted up to `enough`. As
        spelled: the word-pair index narrows the search, and its skeleton
        keys do not tell "fails to" from "falls to"; `spelled=False` counts
        the skeleton pair (l/1/i and 0/o alike)."""
        key = f"{first} {second}".translate(OCR_SAME_LENGTH)
        if not spelled:
            return min(len(self.bigram_postings(key)), enough)
        text = self.folded.text
        found = 0
        for at in self.bigram_postings(key)[:_PHRASE_PROBES]:
            word = _WORD.match(text, at)
            following = _WORD.search(text, word.end()) if word else None
            if (
                word is not None
                and following is not None
                and word.group() == first
                and following.group() == second
            ):
                found += 1
                if found >= enough:
                    break
        return found

    def number_postings(self, token: str) -> Sequence[int]:
        """Skeleton offsets where `token`, a whole token of NUMBER_MIN_CHARS
        or more with a digit (2 to 9: the skeleton reads 0 and 1 as letters),
        occurs."""
        self._index()
        return (self._numbers or {}).get(token, ())

    @property
    def vocabulary(self) -> dict[str, int]:
        """Full OCR skeleton of each word -> how often the document uses it
        (lexicon.py tells damaged words from the document's own words)."""
        self._index()
        assert self._vocabulary is not None  # set with the index
        return self._vocabulary


_EMPTY: Postings = array("q")
# Occurrences of a pair's skeleton checked for its spelling: a bound on the
# rare pair whose skeleton is everywhere ("of the") and its spelling nowhere.
_PHRASE_PROBES = 4096


def _vocabulary(words: Counter[str]) -> dict[str, int]:
    vocabulary: dict[str, int] = {}
    for word, count in words.items():
        key = ocr_skeleton(word, remember=False)
        vocabulary[key] = vocabulary.get(key, 0) + count
    return vocabulary


def _index_words(
    skeleton: str,
) -> tuple[dict[str, Postings], Counter[str], dict[str, tuple[int, ...]]]:
    # Word pairs rather than single words: in boilerplate or low-entropy text
    # every single word is common, pairs stay selective, and at 5% OCR noise
    # about half the pairs of a quote survive intact, which is plenty.
    starts = [m.start() for m in _WORD.finditer(skeleton)]
    words = _WORD.findall(skeleton)
    number_places = _numbers(words, starts)
    # Padding: a key that would run past the last word ends in a space.
    padded = words + [""] * MAX_KEY_WORDS
    keys = list(map(" ".join, itertools.pairwise(words)))
    numbers: Iterable[int] = range(len(keys))
    index = _group(keys, starts)
    level = index
    for n in range(3, MAX_KEY_WORDS + 1):
        # Sequential passes over the positions whose key is frequent, with
        # map and compress doing the per-position work in C.
        frequent = {k for k, v in level.items() if len(v) > SELECTIVE}
        if not frequent:
            break
        flags = list(map(frequent.__contains__, keys))
        numbers = list(compress(numbers, flags))
        starts = list(compress(starts, flags))
        following = map(padded.__getitem__, map(add, numbers, repeat(n - 1)))
        keys = list(map(" ".join, zip(compress(keys, flags), following, strict=False)))
        level = _group(keys, starts)
        for key in [k for k in level if k.endswith(" ")]:
            del level[key]
        index.update(level)
    # Arrays, not lists of ints: a fifth of the memory, and the garbage
    # collector has millions fewer references to walk on every full
    # collection (a 5 MB document's lists cost ~60 ms a pass, in whatever
    # query happened to trigger it).
    typecode = "i" if len(skeleton) < 2**31 else "q"
    postings: dict[str, Postings] = {k: array(typecode, v) for k, v in index.items()}
    return postings, Counter(words), number_places


def _numbers(words: list[str], starts: list[int]) -> dict[str, tuple[int, ...]]:
    """Where each token of NUMBER_MIN_CHARS or more with a digit starts
    (stage 2 seeds from rare numbers). Tokens that are not all letters are
    few in prose: they are picked out in C."""
    numbers: dict[str, list[int]] = {}
    not_letters = map(not_, map(str.isalpha, words))
    for word, at in compress(zip(words, starts, strict=True), not_letters):
        if len(word) >= NUMBER_MIN_CHARS and _DIGIT.search(word):
            numbers.setdefault(word, []).append(at)
    # Tuples of ints, not arrays: the collector stops tracking them (and then
    # this dict) after one pass, where tens of thousands of arrays would be
    # walked on every full collection.
    return {k: tuple(v) for k, v in numbers.items()}


def _group(keys: Iterable[str], starts: Iterable[int]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    get = index.get
    for key, at in zip(keys, starts, strict=False):  # one start more than pairs
        postings = get(key)
        if postings is None:
            index[key] = [at]
        else:
            postings.append(at)
    return index


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
        return self.put(
            PreparedText(
                text=text,
                folded=folded,
                skeleton=folded.text.translate(OCR_SAME_LENGTH),
            )
        )

    def put(self, prepared: PreparedText) -> PreparedText:
        text = prepared.text
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


# --------------------------------------------------------------- stored form

# The stored form's version: a hash of the code that builds it (folding and
# this module), so a change to either rule makes every stored form stale and
# it is rebuilt, never read with the wrong offsets.
FORMAT = hashlib.sha256(
    Path(folding.__file__).read_bytes() + Path(__file__).read_bytes()
).hexdigest()[:16]


def dumps(prepared: PreparedText) -> bytes:
    """The prepared form with its index, as bytes to store (marshal: plain
    values only, so loading it never runs code; zlib level 1: about 1.3x
    the text, not 3x)."""
    keys = prepared._index()
    folded = prepared.folded
    body = (
        FORMAT,
        len(prepared.text),
        folded.text,
        folded.source_length,
        folded.f_starts,
        folded.o_starts,
        folded.o_lens,
        folded.identity,
        prepared.skeleton,
        {
            key: (postings.typecode, postings.tobytes())
            for key, postings in keys.items()
        },
        prepared._vocabulary,
        prepared._numbers,
    )
    return zlib.compress(marshal.dumps(body), 1)


def loads(text: str, blob: bytes) -> PreparedText | None:
    """The prepared form of `text` from `dumps`' bytes; None when they were
    made by other rules (FORMAT), for another text, or are damaged."""
    try:
        body = marshal.loads(zlib.decompress(blob))
        (
            version,
            length,
            folded_text,
            source_length,
            f_starts,
            o_starts,
            o_lens,
            identity,
            skeleton,
            keys,
            vocabulary,
            numbers,
        ) = body
        if version != FORMAT or length != len(text) or source_length != len(text):
            return None
        index: dict[str, Postings] = {}
        for key, (typecode, raw) in keys.items():
            postings = array(typecode)
            postings.frombytes(raw)
            index[key] = postings
    except (ValueError, TypeError, EOFError, zlib.error):
        return None
    prepared = PreparedText(
        text=text,
        folded=Folded(
            text=folded_text,
            source_length=source_length,
            f_starts=f_starts,
            o_starts=o_starts,
            o_lens=o_lens,
            identity=identity,
        ),
        skeleton=skeleton,
    )
    prepared._vocabulary = vocabulary
    prepared._numbers = numbers
    prepared._keys = index
    lexicon.looks_scanned(vocabulary)  # cached by lexicon, as _index does
    return prepared


def seed(prepared: PreparedText) -> PreparedText:
    """Put a loaded prepared form in the cache (the text's own entry wins
    if another thread prepared it meanwhile)."""
    return _cache.put(prepared)
