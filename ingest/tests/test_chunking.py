from __future__ import annotations

import random
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.chunking import ChunkSpan, chunk_text
from ingest.normalize import normalize_pages, page_for_offset

WORDS = [
    "the",
    "supplier",
    "shall",
    "deliver",
    "goods",
    "within",
    "thirty",
    "days",
    "of",
    "notice",
]


def prose(n_words: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(n_words):
        word = rng.choice(WORDS)
        out.append(word + ("." if i % 11 == 10 else ""))
        if i % 60 == 59:
            out.append("\n\n")
    return " ".join(out).replace(" \n\n ", "\n\n")


def _word_at(content: str, i: int) -> tuple[int, int]:
    """Bounds of the non-space run containing index i."""
    a = i
    while a > 0 and not content[a - 1].isspace():
        a -= 1
    b = i
    while b < len(content) and not content[b].isspace():
        b += 1
    return a, b


def check_invariants(
    content: str,
    page_starts: list[int],
    spans: list[ChunkSpan],
    target: int,
    overlap: int,
) -> None:
    covered = bytearray(len(content))
    for k, span in enumerate(spans):
        assert span.index == k
        assert 0 <= span.start < span.end <= len(content)
        text = content[span.start : span.end]
        assert text.strip(), "no empty or all-whitespace chunk"
        assert not text[0].isspace() and not text[-1].isspace(), (
            "whitespace is trimmed by moving boundaries"
        )
        for boundary in (span.start, span.end):
            inside_word = (
                0 < boundary < len(content)
                and not content[boundary - 1].isspace()
                and not content[boundary].isspace()
            )
            if inside_word:
                a, b = _word_at(content, boundary)
                assert b - a > 2 * target, (
                    f"cut inside a word of {b - a} chars at {boundary}"
                )
        assert span.end - span.start <= 2 * target + overlap
        assert span.page_start == page_for_offset(page_starts, span.start)
        assert span.page_end == page_for_offset(page_starts, span.end - 1)
        assert 1 <= span.page_start <= span.page_end <= len(page_starts)
        covered[span.start : span.end] = b"\x01" * (span.end - span.start)
        if k:
            assert span.start > spans[k - 1].start and span.end > spans[k - 1].end
    missing = [i for i, ch in enumerate(content) if not ch.isspace() and not covered[i]]
    assert not missing, f"uncovered characters at {missing[:5]}"


def test_empty_and_blank_text_give_no_chunks():
    assert chunk_text("", [0]) == []
    assert chunk_text(" \n\n\t ", [0]) == []


def test_short_text_is_one_trimmed_chunk():
    content = "\n  Hello there.  \n"
    [span] = chunk_text(content, [0])
    assert content[span.start : span.end] == "Hello there."
    assert (span.page_start, span.page_end) == (1, 1)


def test_long_prose_gets_target_sized_overlapping_chunks():
    content = prose(3000)
    spans = chunk_text(content, [0], target_chars=1200, overlap_chars=150)
    check_invariants(content, [0], spans, 1200, 150)
    assert len(spans) > 10
    assert all(s.end - s.start <= 1200 for s in spans)
    assert all(spans[i + 1].start < spans[i].end for i in range(len(spans) - 1)), (
        "consecutive chunks overlap"
    )


def test_prefers_paragraph_then_sentence_breaks():
    para = "word " * 150  # 750 chars
    content = para.strip() + ".\n\n" + para.strip() + " end"
    [first, *_] = chunk_text(content, [0], target_chars=1000, overlap_chars=0)
    assert content[first.end :].startswith("\n\n")
    sentences = ("Alpha beta gamma delta. " * 60).strip()
    [first, *_] = chunk_text(sentences, [0], target_chars=500, overlap_chars=0)
    assert sentences[first.end - 1] == "."


def test_overlap_starts_on_a_word():
    content = prose(800)
    spans = chunk_text(content, [0], target_chars=300, overlap_chars=100)
    for span in spans[1:]:
        assert content[span.start - 1].isspace()


def test_pages_follow_page_starts():
    text = normalize_pages([prose(300, seed=1), prose(300, seed=2), prose(300, seed=3)])
    spans = chunk_text(
        text.content, text.page_starts, target_chars=400, overlap_chars=50
    )
    check_invariants(text.content, text.page_starts, spans, 400, 50)
    assert spans[0].page_start == 1 and spans[-1].page_end == 3
    assert any(s.page_start < s.page_end for s in spans) or all(
        text.content[s.start : s.end].count("\n\n") == 0 for s in spans
    )


def test_word_up_to_twice_the_target_is_kept_whole():
    word = "x" * 180
    content = f"start {word} end"
    spans = chunk_text(content, [0], target_chars=100, overlap_chars=20)
    check_invariants(content, [0], spans, 100, 20)
    assert any(
        content[s.start : s.end].endswith(word) or word in content[s.start : s.end]
        for s in spans
    )


def test_no_overlap_when_a_long_word_follows_a_gap():
    # Found by the property test: overlapping "a" and the blank lines after it
    # before a word of exactly twice the target made a chunk of 75 > 70 + 4.
    content = "a\na\n\n\n\n" + "Q" * 70
    spans = chunk_text(content, [0], target_chars=35, overlap_chars=4)
    check_invariants(content, [0], spans, 35, 4)
    assert [(s.start, s.end) for s in spans] == [(0, 3), (7, 77)]


def test_pathological_word_is_split_every_target_chars():
    blob = "A" * 1000
    content = f"intro {blob} outro"
    spans = chunk_text(content, [0], target_chars=100, overlap_chars=20)
    check_invariants(content, [0], spans, 100, 20)
    pieces = [content[s.start : s.end] for s in spans]
    assert (
        "".join(
            p.replace("intro ", "").replace(" outro", "") for p in pieces if "A" in p
        ).count("A")
        >= 1000
    )


def test_chunking_is_fast_on_a_large_document():
    content = prose(200_000)  # ~1.2 M characters
    started = time.perf_counter()
    spans = chunk_text(content, [0])
    assert time.perf_counter() - started < 2.0
    assert len(spans) > 900


PAGE_TEXT = st.lists(
    st.sampled_from(
        [
            *"aé bc.!?\n\t",
            *(
                "\n\n",
                "\r\n",
                "\u0301",
                "\u00a0",
                "\u200b",
                "\x00",
            ),  # breaks, combining, NBSP, ZWSP, NUL
            *(
                "😀",
                "ﬁ",
                "“",
                "”",
                "—",
                "ß",
                "xyzzy",
                "Q" * 70,
            ),  # emoji, ligature, quotes, a very long word
        ]
    ),
    max_size=120,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pages=st.lists(PAGE_TEXT, min_size=1, max_size=5),
    target=st.integers(min_value=5, max_value=120),
    overlap_share=st.floats(min_value=0, max_value=0.6),
)
def test_chunk_invariants_hold_for_any_text(pages, target, overlap_share):
    text = normalize_pages(pages)
    overlap = int(target * overlap_share)
    spans = chunk_text(
        text.content, text.page_starts, target_chars=target, overlap_chars=overlap
    )
    check_invariants(
        text.content, text.page_starts, spans, target, max(0, min(overlap, target // 2))
    )
