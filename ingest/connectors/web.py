"""Capture a web page by URL: fetched with httpx (HTTP/1.1, TLS verified),
each hop's address checked (ingest.connectors.netpolicy) and connected to
directly, so a name cannot resolve one way for the check and another for
the connection; redirects followed by hand, a few at most, each checked
again; the body read as a stream and stopped at the size limit; only HTML
accepted.

The article is read from the page by `extract_web` (trafilatura, chosen on
Mozilla's Readability test pages: bench/connectors.py --extractors), behind
the same visible-text cleaning as uploaded HTML (hidden elements dropped:
ingest.extractors.html); the title is the page's own (og:title, <title>).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from ingest.connectors.netpolicy import AddressPolicy, BlockedAddress, resolve_allowed
from ingest.extractors import Extracted
from ingest.extractors._common import Progress, read_limited
from ingest.limits import Limits
from lib.exceptions import CodedError

if TYPE_CHECKING:
    from httpx2 import Response

__all__ = ["FetchError", "FetchLimits", "Fetched", "extract_web", "fetch_page"]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
USER_AGENT = "DocuIQ-capture/1.0 (+page capture for a document library)"


class FetchError(CodedError):
    """A page that cannot be fetched: `code` and a message."""


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 10 * 1024 * 1024
    # The whole fetch, every hop and the whole body: a server that sends a
    # byte every few seconds must not hold a worker past it.
    timeout_s: float = 15.0
    max_redirects: int = 5


class _Deadline:
    """The fetch's deadline. `arm(response)` shuts the response's socket
    down when it passes, so a read that is waiting for the next byte of a
    dripping page returns at once instead of when the byte comes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self._timer: threading.Timer | None = None

    def remaining(self) -> float:
        return self.at - time.monotonic()

    @property
    def passed(self) -> bool:
        return self.remaining() <= 0

    def timeouts(self) -> dict[str, float]:
        left = max(0.001, self.remaining())
        return {"connect": min(10.0, left), "read": left, "write": left, "pool": left}

    def arm(self, response: Response) -> None:
        self.disarm()
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return

        def stop() -> None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed: the fetch ended first

        self._timer = threading.Timer(max(0.0, self.remaining()), stop)
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


@dataclass(frozen=True)
class Fetched:
    url: str  # after redirects
    content: bytes
    content_type: str
    status: int


def check_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL, or FetchError."""
    parts = urlsplit(url.strip())
    if parts.scheme not in {"http", "https"}:
        raise FetchError(
            "bad_url", "Only http:// and https:// addresses can be captured."
        )
    if not parts.hostname:
        raise FetchError("bad_url", "This address has no host name.")
    if parts.username or parts.password:
        raise FetchError(
            "bad_url", "Addresses with a user name or password are not captured."
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise FetchError(
            "bad_url", "The port in this address is not a number."
        ) from exc
    return parts.scheme, parts.hostname, port


def fetch_page(
    url: str, *, policy: AddressPolicy, limits: FetchLimits | None = None
) -> Fetched:

    limits = limits or FetchLimits()
    deadline = _Deadline(limits.timeout_s)
    try:
        return _fetch(url, policy, limits, deadline)
    finally:
        deadline.disarm()


def _late(host: str, deadline: _Deadline) -> FetchError:
    return FetchError(
        "timeout", f"{host} did not send the page within {deadline.seconds:g} s."
    )


def _fetch(
    url: str, policy: AddressPolicy, limits: FetchLimits, deadline: _Deadline
) -> Fetched:
    import httpx2 as httpx

    timeout = httpx.Timeout(limits.timeout_s, connect=min(10.0, limits.timeout_s))
    # trust_env=False: a proxy from the environment would connect on our behalf
    # to an address we never checked.
    with httpx.Client(
        timeout=timeout, follow_redirects=False, trust_env=False, http2=False
    ) as client:
        for _hop in range(limits.max_redirects + 1):
            scheme, host, port = check_url(url)
            try:
                address = resolve_allowed(host, port, policy)
            except BlockedAddress as exc:
                raise FetchError(exc.code, exc.message) from exc
            parts = urlsplit(url)
            ip = ipaddress.ip_address(address)
            netloc = f"[{ip}]" if ip.version == 6 else str(ip)
            direct = urlunsplit(
                (scheme, f"{netloc}:{port}", parts.path or "/", parts.query, "")
            )
            host_header = host if port in (80, 443) else f"{host}:{port}"
            request = client.build_request(
                "GET",
                direct,
                headers={
                    "Host": host_header,
                    "User-Agent": USER_AGENT,
                    "Accept": "text/html,application/xhtml+xml",
                },
                extensions={"sni_hostname": host} if scheme == "https" else {},
            )
            if deadline.passed:
                raise _late(host, deadline)
            # Each hop waits only for what is left of the whole fetch's time.
            request.extensions["timeout"] = deadline.timeouts()
            try:
                response = client.send(request, stream=True)
                deadline.arm(response)
            except httpx.TimeoutException as exc:
                raise FetchError(
                    "timeout", f"{host} did not answer within {limits.timeout_s:g} s."
                ) from exc
            except httpx.TransportError as exc:
                raise FetchError(
                    "unreachable",
                    f"{host} could not be reached ({type(exc).__name__}).",
                ) from exc
            try:
                if response.status_code in (301, 302, 303, 307, 308):
                    location = response.headers.get("location", "")
                    if not location:
                        raise FetchError(
                            "bad_response", "The page redirected without saying where."
                        )
                    url = urljoin(url, location)
                    continue
                if response.status_code >= 400:
                    raise FetchError(
                        "http_error",
                        f"The server answered {response.status_code} {response.reason_phrase}.",
                    )
                content_type = (
                    response.headers.get("content-type", "")
                    .split(";")[0]
                    .strip()
                    .lower()
                )
                if content_type not in HTML_TYPES:
                    raise FetchError(
                        "not_html",
                        f"This address serves {content_type or 'no declared type'}, not a web page (HTML).",
                    )
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limits.max_bytes:
                    raise FetchError("too_large", _too_large(int(declared), limits))
                body = bytearray()
                try:
                    for block in response.iter_raw():
                        body += block
                        if len(body) > limits.max_bytes:
                            raise FetchError("too_large", _too_large(None, limits))
                        if deadline.passed:
                            raise _late(host, deadline)
                except httpx.TimeoutException as exc:
                    raise _late(host, deadline) from exc
                except httpx.TransportError as exc:
                    if deadline.passed:  # the deadline shut the socket down
                        raise _late(host, deadline) from exc
                    raise FetchError(
                        "unreachable", f"The connection to {host} broke off."
                    ) from exc
                if deadline.passed:
                    raise _late(host, deadline)
                encoding = response.headers.get("content-encoding", "").lower()
                content = _decode(bytes(body), encoding, limits)
                return Fetched(
                    url=url,
                    content=content,
                    content_type=content_type,
                    status=response.status_code,
                )
            finally:
                response.close()
    raise FetchError(
        "too_many_redirects",
        f"The page redirected more than {limits.max_redirects} times.",
    )


def _decode(body: bytes, encoding: str, limits: FetchLimits) -> bytes:
    """The body, decompressed with the same size limit (a gzip bomb stops
    at the limit, not at memory's end)."""
    if encoding in ("", "identity"):
        return body
    import zlib

    if encoding in ("gzip", "x-gzip", "deflate"):
        wbits = 47 if encoding != "deflate" else zlib.MAX_WBITS
        decompressor = zlib.decompressobj(wbits)
        try:
            out = decompressor.decompress(body, limits.max_bytes + 1)
        except zlib.error as exc:
            raise FetchError(
                "bad_response", "The page's compressed body is damaged."
            ) from exc
        if len(out) > limits.max_bytes:
            raise FetchError("too_large", _too_large(None, limits))
        return out
    raise FetchError(
        "bad_response",
        f"The page is compressed as {encoding!r}, which is not supported.",
    )


def _too_large(size: int | None, limits: FetchLimits) -> str:
    limit = limits.max_bytes / 1_048_576
    if size is None:
        return f"The page is larger than {limit:.0f} MB, the limit for a capture."
    return f"The page is {size / 1_048_576:.1f} MB; the limit for a capture is {limit:.0f} MB."


def extract_web(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    """A captured page's article (the extractor for captured pages)."""
    data = read_limited(path, limits.max_file_bytes)
    title, text, metadata, canonical = article(data)
    progress(1, 1)
    return Extracted(
        title=title or filename,
        source_type="web",
        pages=[text],
        metadata=metadata,
        origin_url=canonical,
    )


def article(markup: bytes) -> tuple[str, str, dict[str, Any], str | None]:
    """(title, text, metadata, canonical URL) of a page: the article by
    trafilatura over the visible markup; the whole visible text when it
    finds no article or one far shorter than the page's main text."""
    import trafilatura

    from ingest.extractors.html import parse_html, visible_markup

    page = parse_html(markup)
    cleaned = visible_markup(markup)
    text = (
        trafilatura.extract(
            cleaned,
            favor_recall=True,
            include_comments=False,
            include_tables=True,
            deduplicate=False,
        )
        or ""
    )
    metadata = dict(page.metadata)
    if len(text) >= 200 or len(text) >= 0.5 * len(page.text):
        metadata["article_extractor"] = "trafilatura"
    else:
        text = page.text
        metadata["article_extractor"] = "visible text"
    return page.title, text, metadata, page.origin_url
