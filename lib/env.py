"""Typed environment readers that fail loudly on values they cannot parse."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

N = TypeVar("N", int, float)


def env_str(name: str, *, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected true or false")


def _env_number(name: str, default: N, parse: Callable[[str], N], expected: str) -> N:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return parse(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected {expected}") from exc


def env_int(name: str, *, default: int) -> int:
    return _env_number(name, default, int, "an integer")


def env_float(name: str, *, default: float) -> float:
    return _env_number(name, default, float, "a number")


def env_list(name: str, *, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default or [])
    return [part.strip() for part in raw.split(",") if part.strip()]
