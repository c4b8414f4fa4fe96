"""Throttles on the ways in, both keyed on the caller's address.

- Failed logins: django-axes (settings AXES_*): after AXES_FAILURE_LIMIT
  failures an account is locked from that address only, and an address is
  locked after as many failures on any accounts, for AXES_COOLOFF_TIME
  (AXES_LOCKOUT_PARAMETERS: username with ip_address, and ip_address). Wrong
  passwords sent from elsewhere never lock the account's owner out: each
  address has its own failure budget per account. A locked login answers
  429 with Retry-After (`lockout_response`) before any password is hashed.
- Failed API keys: a wrong, revoked or malformed `X-API-Key` counts against
  the address; past API_KEY_FAILURE_LIMIT in a window of
  API_KEY_FAILURE_WINDOW_S every further wrong key from it answers 429 with
  Retry-After. A valid key is looked up first and always works: wrong keys
  behind the same proxy never block it. Counted in the cache (Redis in
  production, CACHE_URL) in fixed windows.

The address is REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT reverse proxies
the address the outermost of them saw (X-Forwarded-For, counted from the
right: entries to its left are whatever the client chose to send).
"""

from __future__ import annotations

import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

KEY_PREFIX = "docuiq:api-key-failures:"


def client_address(request: HttpRequest) -> str | None:
    """The caller's address; None when the request has none (a test client's
    force_login), which django-axes stores as unknown."""
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return request.META.get("REMOTE_ADDR") or None


def _window(now: float) -> tuple[int, float]:
    """(the current window's number, seconds until it ends)."""
    size = settings.API_KEY_FAILURE_WINDOW_S
    return int(now // size), size - (now % size)


def api_key_retry_after(address: str) -> int | None:
    """Seconds the address must wait before sending a key again, or None."""
    number, left = _window(time.time())
    failures = cache.get(f"{KEY_PREFIX}{address}:{number}", 0)
    if failures >= settings.API_KEY_FAILURE_LIMIT:
        return max(1, math.ceil(left))
    return None


def api_key_failed(address: str) -> None:
    number, _ = _window(time.time())
    key = f"{KEY_PREFIX}{address}:{number}"
    # add + incr: atomic on Redis and within one process on the local cache.
    cache.add(key, 0, timeout=2 * settings.API_KEY_FAILURE_WINDOW_S)
    try:
        cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=2 * settings.API_KEY_FAILURE_WINDOW_S)


def api_key_throttled_response(retry_after: int) -> HttpResponse:
    response = JsonResponse(
        {
            "detail": "Too many failed API keys from this address. "
            f"Try again in {retry_after} s."
        },
        status=429,
    )
    response["Retry-After"] = str(retry_after)
    return response


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """django-axes' answer to a locked account or address: 429, Retry-After."""
    seconds = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds()))
    response = render(
        request,
        "accounts/locked_out.html",
        {"minutes": math.ceil(seconds / 60)},
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response
