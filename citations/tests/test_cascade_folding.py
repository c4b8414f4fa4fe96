"""citations/cascade/folding.py: the tolerant comparison space and its map
back to the document's own characters (SPEC §3: a tolerant match reports
offsets into the original text). The offset map is checked as properties
over text full of what folding rewrites; timings are never asserted."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citations.cascade.folding import (
    IGNORABLE,
    OCR_SAME_LENGTH,
    fold,
    fold_text,
    ocr_skeleton,
)

# What folding rewrites, drops or expands, among plain letters.
REWRITTEN = [
    "\u00a0",
    "\u00ad",
    "\u200b",
    "\ufeff",
    "\r\n",
    "\n",
    "\t",
    "  ",
    "-\n",
    "ﬁ",
    "ﬀ",
    "ﬃ",
    "“",
    "”",
    "’",
    "–",
    "—",
    "…",
    "e\u0301",
    "ß",
    "İ",
    "ᴀ",
    "Ａ",
    "½",
    "²",
    "🙂",
]
CHARS = st.one_of(
    st.characters(exclude_categories=("Cs",)),
    st.sampled_from(REWRITTEN),
    st.sampled_from(list("abcdefgh ABC 0123 .,;-")),
)
TEXTS = st.lists(CHARS, max_size=120).map("".join)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SAMPLE = "A\u00a0“quote”  with ﬁ-\nnal Straße and e\u0301 and \u200bzero\r\nwidth"


def test_every_folded_span_maps_back_to_text_that_folds_to_it():
    folded = fold(SAMPLE)
    for i in range(len(folded.text)):
        for j in range(i + 1, len(folded.text) + 1):
            start, end = folded.source_span(i, j)
            assert 0 <= start < end <= len(SAMPLE)
            assert folded.text[i:j] in fold(SAMPLE[start:end]).text


@SETTINGS
@given(TEXTS)
@example("termi-\nnation")
@example("a \u200b\u00ad b")
def test_any_folded_span_maps_back_to_text_that_folds_to_it(text):
    folded = fold(text)
    n = len(folded.text)
    step = max(1, n // 12)
    for i in range(0, n, step):
        for j in range(i + 1, n + 1, step):
            start, end = folded.source_span(i, j)
            assert 0 <= start < end <= len(text)
            assert folded.text[i:j] in fold(text[start:end]).text


@SETTINGS
@given(TEXTS)
def test_the_map_never_runs_backwards(text):
    # A span later in folded text is never earlier in the source: the
    # stages widen and join spans by their ends.
    folded = fold(text)
    starts = [folded.source_start(f) for f in range(len(folded.text))]
    ends = [folded.source_end(f + 1) for f in range(len(folded.text))]
    assert starts == sorted(starts)
    assert ends == sorted(ends)
    assert all(s < e for s, e in zip(starts, ends, strict=True))
    offsets = [folded.folded_offset(o) for o in range(len(text) + 1)]
    assert offsets == sorted(offsets)
    assert all(0 <= f <= len(folded.text) for f in offsets)


@SETTINGS
@given(st.lists(st.sampled_from(["the", "buyer", "shall", "pay", "30", "days"])))
def test_text_with_nothing_to_fold_maps_one_to_one(words):
    text = " ".join(words)
    folded = fold(text)
    assert folded.text == text
    for i in range(len(text)):
        assert folded.source_span(i, i + 1) == (i, i + 1)
        assert folded.folded_offset(i) == i


@SETTINGS
@given(TEXTS)
def test_fold_text_is_the_folded_string_of_fold(text):
    # fold_text takes a remembered shortcut for short strings.
    assert fold_text(text) == fold(text).text


@SETTINGS
@given(TEXTS)
def test_folded_text_holds_no_ignorable_character(text):
    assert not IGNORABLE & set(fold(text).text)


def test_a_bad_folded_span_is_refused():
    folded = fold("The Buyer")
    for start, end in ((3, 3), (-1, 2), (0, 99)):
        try:
            folded.source_span(start, end)
        except ValueError:
            continue
        raise AssertionError(f"[{start}, {end}) was mapped")


def test_presentation_differences_fold_away():
    assert fold("termi-\nnation").text == "termination"
    assert fold("“Quote” – it’s").text == '"quote" - it\'s'
    assert fold("ﬁnal\u00a0\u00a0 sum").text == "final sum"
    assert fold("soft\u00adhyphen zero\u200bwidth").text == "softhyphen zerowidth"
    assert fold("ᴀɢʀᴇᴇᴍᴇɴᴛ").text == "agreement"


def test_composed_and_decomposed_accents_fold_alike():
    assert fold("café").text == fold("cafe\u0301").text


def test_a_prefix_hyphen_at_a_line_break_is_kept():
    # "non-\nexclusive" is spelled with its hyphen: dropping it would make
    # "nonexclusive" of a word the guard reads as a negation.
    assert fold("non-\nexclusive").text == "non-exclusive"


def test_numbers_are_never_folded_into_each_other():
    # Superscripts, fractions and other scripts' digits stay as written
    # (module docstring): "2²" is not "22", "½" is not "1/2".
    assert fold("2²").text != fold("22").text
    assert fold("½").text == "½"
    assert fold("٣").text == "٣"
    assert fold("１２").text == "12"  # fullwidth ASCII digits are the digits


def test_the_ocr_skeleton_merges_look_alike_glyphs():
    assert ocr_skeleton("rnay") == ocr_skeleton("may")
    assert ocr_skeleton("cleliver") == ocr_skeleton("deliver")
    assert (
        ocr_skeleton("sha1l") == ocr_skeleton("shall") == ocr_skeleton("shaIl".lower())
    )
    assert ocr_skeleton("n0t") == ocr_skeleton("not")
    assert ocr_skeleton("licensor") != ocr_skeleton("licensee")


@SETTINGS
@given(TEXTS)
def test_the_skeleton_is_the_same_remembered_or_not(text):
    folded = fold(text).text
    assert ocr_skeleton(folded) == ocr_skeleton(folded, remember=False)


@SETTINGS
@given(TEXTS)
def test_same_length_ocr_folding_keeps_offsets(text):
    folded = fold(text).text
    assert len(folded.translate(OCR_SAME_LENGTH)) == len(folded)
