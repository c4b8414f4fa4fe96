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


class CodedError(Exception):
    """An error raised below the apps (a connector's reader, a network
    policy) with a stable `code` the caller maps to its own error, and a
    message for the person who set the source up."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
