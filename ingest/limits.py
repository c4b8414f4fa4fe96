"""Caps on what one uploaded file may cost (RELIABILITY.md §3, UPL-01/02/06/07).

Plain data with safe defaults, so the extractors stay free of Django; the ingest
service builds one from settings. The sandbox sends it to the child process as JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["Limits"]

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    # Whole file and whole run (UPL-01/02).
    max_file_bytes: int = 50 * MiB
    timeout_s: float = 120.0
    # A page that alone takes this long is a sign of a hostile file (UPL-01).
    page_timeout_s: float = 10.0
    memory_bytes: int = 1024 * MiB
    # Text output (UPL-02): 50,000 chars is ~10x the densest real page.
    max_pages: int = 2000
    max_chars_per_page: int = 50_000
    max_total_chars: int = 20_000_000
    # Email, checked before the stdlib parser sees the bytes (UPL-06).
    max_email_bytes: int = 25 * MiB
    max_email_parts: int = 100
    max_email_depth: int = 5
    max_email_header_bytes: int = 64 * 1024
    # Zip archives: email attachments and the insides of DOCX files (UPL-07).
    max_zip_total_bytes: int = 100 * MiB
    max_zip_entries: int = 1000
    max_zip_depth: int = 2
    max_zip_ratio: float = 100.0
    # Real documents compress far better than 100:1 when small (xberg-io/xberg#1499).
    zip_ratio_min_member_bytes: int = 1 * MiB

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limits:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
