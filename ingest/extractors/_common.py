"""Helpers shared by the extractors: progress with a deadline, text decoding, titles."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ingest.errors import ErrorCode, ExtractionError
from ingest.limits import Limits

__all__ = ["Progress", "decode_text", "read_limited", "title_from_filename"]

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


class Progress:
    """Reports pages done and stops the work cooperatively when time runs out.

    The sandbox enforces the same limits from outside (a hung C parser never comes
    back to check); this makes the in-process path fail cleanly too.
    """

    def __init__(
        self, limits: Limits, callback: Callable[[int, int], None] | None = None
    ) -> None:
        self._callback = callback
        self._limits = limits
        now = time.monotonic()
        self._deadline = now + limits.timeout_s
        self._last_step: float | None = None  # set once page-by-page reading starts

    def check(self) -> None:
        now = time.monotonic()
        if now > self._deadline:
            raise ExtractionError(
                ErrorCode.TIMEOUT,
                f"Reading this file took longer than {self._limits.timeout_s:g} seconds and was stopped.",
            )
        if (
            self._last_step is not None
            and now - self._last_step > self._limits.page_timeout_s
        ):
            raise ExtractionError(
                ErrorCode.TIMEOUT,
                f"One page took longer than {self._limits.page_timeout_s:g} seconds to read; "
                "the file was stopped.",
            )

    def __call__(self, done: int, total: int) -> None:
        self.check()
        # Same rule as the sandbox: the per-page clock runs only for paged reading.
        self._last_step = time.monotonic() if total > 1 else None
        if self._callback is not None:
            self._callback(done, total)


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode bytes of unknown encoding: BOM, then UTF-8, then cp1252, then latin-1."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(
                encoding.removesuffix("-sig"), errors="replace"
            ), encoding
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"  # never fails: every byte is a character


def read_limited(path: Path, limit: int, what: str = "file") -> bytes:
    """The file's bytes, refusing (before reading) anything over `limit`."""
    size = path.stat().st_size
    if size > limit:
        raise ExtractionError(
            ErrorCode.TOO_LARGE,
            f"This {what} is {_mb(size)}; the limit is {_mb(limit)}.",
        )
    return path.read_bytes()


def title_from_filename(filename: str) -> str:
    name = Path(filename.replace("\\", "/")).name
    stem = Path(name).stem if "." in name else name
    return stem.strip() or "Untitled"


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"
