"""Source texts the cascade tests share."""

# Two sentences of OCR damage (five one-off non-words, lexicon.SCANNED_MIN_NON_WORDS): prefixed to a short source, it makes the document
# read as a scan (lexicon.looks_scanned), where a look-alike glyph may be
# damage; without it a short source reads as clean text.
from __future__ import annotations

SCANNED_PREAMBLE = (
    "Tlie Sel1er and tbe Buyer agrec as fo1lows. Thc parties herehy agree tbereto. "
)
