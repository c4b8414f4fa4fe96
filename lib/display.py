"""Display safety: bidirectional control characters never reach a page raw.

A document (or a model quoting one) may carry the Unicode controls that
reorder text: embeddings, overrides and isolates. Shown raw, "U+202E" turns
the rest of its line around, so "pay within 10 days" can read as something
else, and a file name can pretend another extension ("Trojan Source",
CVE-2021-42574). Stored text and offsets keep them (they are what the source
says, and citations point into it); every HTML page shows each as a visible
mark instead, one character for one, so lengths and offsets on the page are
unchanged. Streamed answers are marked on the way out too, and the page's
script marks text it inserts from JSON (static/js/app.js).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)


class BidiControl(NamedTuple):
    code: int
    name: str


# The explicit formatting characters of the Unicode bidirectional algorithm
# (UAX #9, section 2): each changes the order of the text that follows it.
BIDI_CONTROLS = (
    BidiControl(0x202A, "LEFT-TO-RIGHT EMBEDDING"),
    BidiControl(0x202B, "RIGHT-TO-LEFT EMBEDDING"),
    BidiControl(0x202C, "POP DIRECTIONAL FORMATTING"),
    BidiControl(0x202D, "LEFT-TO-RIGHT OVERRIDE"),
    BidiControl(0x202E, "RIGHT-TO-LEFT OVERRIDE"),
    BidiControl(0x2066, "LEFT-TO-RIGHT ISOLATE"),
    BidiControl(0x2067, "RIGHT-TO-LEFT ISOLATE"),
    BidiControl(0x2068, "FIRST STRONG ISOLATE"),
    BidiControl(0x2069, "POP DIRECTIONAL ISOLATE"),
)
# Shown instead: the replacement character, one code point (and one UTF-16
# unit) like the control it stands for.
MARK = "\ufffd"
_TABLE = {c.code: MARK for c in BIDI_CONTROLS}
_ENCODED = re.compile(b"|".join(re.escape(chr(c.code).encode()) for c in BIDI_CONTROLS))


def neutralise(text: str) -> str:
    """`text` with every bidi control shown as MARK (same length)."""
    return text.translate(_TABLE)


def _marked_stream(chunks: Iterator[bytes]) -> Iterator[bytes]:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    for chunk in chunks:
        text = decoder.decode(chunk)
        if text:
            yield neutralise(text).encode("utf-8", errors="surrogateescape")
    tail = decoder.decode(b"", final=True)
    if tail:
        yield neutralise(tail).encode("utf-8", errors="surrogateescape")


MARKED_TYPES = ("text/html", "text/event-stream")


class BidiControlMiddleware:
    """Marks bidi controls in every HTML page and event stream."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not response.get("Content-Type", "").startswith(MARKED_TYPES):
            return response
        if isinstance(response, StreamingHttpResponse):
            content = response.streaming_content
            # Every stream here is sync (the chat's events, the CSV export);
            # an async one would need an async marker and passes unmarked.
            if isinstance(content, Iterator):
                response.streaming_content = _marked_stream(content)
        elif isinstance(response, HttpResponse) and _ENCODED.search(response.content):
            response.content = neutralise(
                response.content.decode(response.charset or "utf-8")
            ).encode(response.charset or "utf-8")
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response
