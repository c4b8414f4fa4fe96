from __future__ import annotations


class DocuIQError(Exception):
    """A domain error with a stable code and a message fit for an end user."""

    code = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class NotFound(DocuIQError):
    code = "not_found"
