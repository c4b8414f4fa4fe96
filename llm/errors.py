"""What can go wrong when asking a model, split by what the caller should do.

* :class:`LLMUnavailable`: transient (connection refused, timeout, 429, 5xx, a
  stream cut off). Celery tasks retry these with backoff; the UI says "the model
  is unavailable, try again".
* :class:`LLMBadResponse`: the server answered, but with something unusable
  (not JSON, empty, schema-invalid). Retrying the same call won't help.
* :class:`LLMRequestRejected`: the server refused the request (400/401/403/404):
  a configuration problem such as a wrong key or model name. Don't retry.

Messages are written for people ("The model server at … did not answer within
60 s."), because they end up on a document's or a tabular cell's error line.
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class. ``retryable`` tells a task whether trying again can help."""

    retryable = False

    def __init__(
        self,
        message: str,
        *,
        base_url: str | None = None,
        model: str | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.base_url = base_url
        self.model = model
        self.status = status

    def __str__(self) -> str:
        return self.message


class LLMUnavailable(LLMError):
    """The model server could not be reached or is overloaded, after retries."""

    retryable = True


class LLMBadResponse(LLMError):
    """The model server answered with something we cannot use."""

    retryable = False


class LLMRequestRejected(LLMError):
    """The model server refused the request (bad key, unknown model, bad params)."""

    retryable = False
