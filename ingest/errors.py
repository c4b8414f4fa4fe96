"""The one exception extraction raises, with a code from a fixed set.

The code is stored on the document and drives the UI; the message is shown to the
person who uploaded the file, so it says what happened and what to do, never a
traceback or a library's wording.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ErrorCode", "ExtractionError", "UnsupportedType"]


class ErrorCode(StrEnum):
    ENCRYPTED = "encrypted"
    CORRUPT = "corrupt"
    EMPTY = "empty"
    NO_TEXT = "no_text"
    TOO_LARGE = "too_large"
    TOO_MANY_PAGES = "too_many_pages"
    TIMEOUT = "timeout"
    TOO_COMPLEX = "too_complex"
    UNSUPPORTED_TYPE = "unsupported_type"
    ZIP_BOMB = "zip_bomb"
    BAD_EMAIL = "bad_email"


_DEFAULT_MESSAGES = {
    ErrorCode.ENCRYPTED: "This file is password-protected; upload an unlocked copy.",
    ErrorCode.CORRUPT: "This file is damaged or not in the format its name says, so it could not be read.",
    ErrorCode.EMPTY: "This file is empty.",
    ErrorCode.NO_TEXT: (
        "No text could be found in this file. It looks like a scan (images only), "
        "and OCR is not available; upload a version with a text layer."
    ),
    ErrorCode.TOO_LARGE: "This file is too large to process.",
    ErrorCode.TOO_MANY_PAGES: "This document has too many pages to process.",
    ErrorCode.TIMEOUT: "Reading this file took too long and was stopped.",
    ErrorCode.TOO_COMPLEX: "This file is too large or too complex to process (it needed too much memory).",
    ErrorCode.UNSUPPORTED_TYPE: "This type of file is not supported.",
    ErrorCode.ZIP_BOMB: "This archive expands to far more data than allowed and was refused.",
    ErrorCode.BAD_EMAIL: "This email could not be read safely.",
}


class ExtractionError(Exception):
    """A file could not be turned into text; `code` is one of :class:`ErrorCode`."""

    code: str
    message: str

    def __init__(self, code: ErrorCode | str, message: str | None = None) -> None:
        code = ErrorCode(code)  # an unknown code is a programming error: fail loudly
        self.code = code.value
        self.message = message or _DEFAULT_MESSAGES[code]
        super().__init__(self.code, self.message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class UnsupportedType(ExtractionError):
    def __init__(self, message: str | None = None) -> None:
        super().__init__(ErrorCode.UNSUPPORTED_TYPE, message)
