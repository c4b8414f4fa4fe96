"""Safe reading of ZIP archives (email attachments, and the insides of DOCX files).

Everything an attacker controls is bounded before or while it is read
(RELIABILITY.md UPL-07): the entry count and the declared sizes are checked
first; entries whose data overlap (the "overlapping-entry" bomb) are refused;
members are then read in blocks, counting the bytes really produced, so a member
that lies about its size is caught too. The compression-ratio cap applies only
to members of 1 MiB or more, because small real files routinely compress better
than 100:1. Paths that climb out (``../``) or are absolute are refused outright.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

from ingest.errors import ErrorCode, ExtractionError
from ingest.limits import Limits

__all__ = ["ZipBudget", "check_zip", "is_ooxml", "read_member", "read_zip"]

_BLOCK = 64 * 1024
_LOCAL_HEADER = 30
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass
class ZipBudget:
    """What is left to spend across one archive and every archive nested in it."""

    bytes_left: int
    entries_left: int

    @classmethod
    def from_limits(cls, limits: Limits) -> ZipBudget:
        return cls(
            bytes_left=limits.max_zip_total_bytes, entries_left=limits.max_zip_entries
        )


def is_ooxml(names: list[str]) -> bool:
    """A .docx/.xlsx/.pptx is a ZIP too, but a document, not an archive."""
    return "[Content_Types].xml" in names


def check_zip(
    zf: zipfile.ZipFile, limits: Limits, budget: ZipBudget, *, label: str
) -> list[zipfile.ZipInfo]:
    """Refuse the archive (ExtractionError) unless its directory is within limits.

    Returns the file entries (directories left out). Reads no member data.
    """
    infos = zf.infolist()
    budget.entries_left -= len(infos)
    if budget.entries_left < 0:
        raise _bomb(label, f"it has more than {limits.max_zip_entries:,} entries")
    files = [info for info in infos if not info.is_dir()]
    for info in infos:
        if _unsafe_path(info.filename):
            raise ExtractionError(
                ErrorCode.ZIP_BOMB,
                f"{label} was refused: it contains an unsafe path ({info.filename[:100]!r}).",
            )
    declared = sum(info.file_size for info in files)
    if declared > budget.bytes_left:
        raise _bomb(
            label, f"it would expand to more than {_mb(limits.max_zip_total_bytes)}"
        )
    for info in files:
        if _ratio_exceeded(info.file_size, info.compress_size, limits):
            raise _bomb(
                label,
                f"{info.filename[:100]!r} is compressed {info.file_size // max(1, info.compress_size):,} to 1",
            )
    _check_overlap(zf, infos, label)
    return files


def read_zip(
    data: bytes,
    limits: Limits,
    *,
    label: str,
    depth: int = 1,
    budget: ZipBudget | None = None,
) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """The archive's files as (path inside the archive, bytes), and per-member errors.

    Archives inside the archive are opened in turn, down to `limits.max_zip_depth`
    levels; their files are returned with paths like ``inner.zip/dir/file.pdf``.
    Raises ExtractionError (code ``zip_bomb`` or ``corrupt``) when the whole
    archive must be refused.
    """
    budget = budget or ZipBudget.from_limits(limits)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ExtractionError(
            ErrorCode.CORRUPT, f"{label} is not a readable ZIP archive."
        ) from exc
    files: list[tuple[str, bytes]] = []
    errors: list[tuple[str, str]] = []
    with zf:
        for info in check_zip(zf, limits, budget, label=label):
            name = info.filename.replace("\\", "/")
            if info.flag_bits & 0x1:
                errors.append(
                    (name, f"{name} in {label} is password-protected and was skipped.")
                )
                continue
            try:
                content = read_member(zf, info, limits, budget, label)
            except (
                zipfile.BadZipFile,
                OSError,
                ValueError,
                EOFError,
                NotImplementedError,
                RuntimeError,
            ):
                errors.append(
                    (name, f"{name} in {label} is damaged and could not be read.")
                )
                continue
            if content.startswith(b"PK\x03\x04") and not _ooxml_bytes(content):
                if depth >= limits.max_zip_depth:
                    raise _bomb(
                        label,
                        f"it nests archives more than {limits.max_zip_depth} levels deep",
                    )
                inner, inner_errors = read_zip(
                    content,
                    limits,
                    label=f"{label}/{name}",
                    depth=depth + 1,
                    budget=budget,
                )
                files.extend((f"{name}/{path}", blob) for path, blob in inner)
                errors.extend(
                    (f"{name}/{path}", message) for path, message in inner_errors
                )
                continue
            files.append((name, content))
    return files, errors


def read_member(
    zf: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    limits: Limits,
    budget: ZipBudget,
    label: str,
) -> bytes:
    """One member's bytes, counted against the budget as they are produced
    (`read_zip`, and readers that go through an archive member by member:
    chat exports)."""
    chunks: list[bytes] = []
    size = 0
    with zf.open(info) as fh:
        while block := fh.read(_BLOCK):
            size += len(block)
            budget.bytes_left -= len(block)
            if budget.bytes_left < 0:
                raise _bomb(
                    label,
                    f"it would expand to more than {_mb(limits.max_zip_total_bytes)}",
                )
            if size > info.file_size or _ratio_exceeded(
                size, info.compress_size, limits
            ):
                raise _bomb(
                    label, f"{info.filename[:100]!r} expands far beyond its stated size"
                )
            chunks.append(block)
    return b"".join(chunks)


def _ratio_exceeded(size: int, compressed: int, limits: Limits) -> bool:
    return (
        size >= limits.zip_ratio_min_member_bytes
        and size > limits.max_zip_ratio * max(1, compressed)
    )


def _check_overlap(
    zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo], label: str
) -> None:
    # Each entry's data must end before the next entry's header begins; a bomb made
    # of overlapping entries reuses one compressed stream many times.
    ordered = sorted(infos, key=lambda i: i.header_offset)
    limit = getattr(zf, "start_dir", None)
    for current, following in zip(ordered, [*ordered[1:], None], strict=False):
        encoding = "utf-8" if current.flag_bits & 0x800 else "cp437"
        name_len = len(current.orig_filename.encode(encoding, errors="replace"))
        end = current.header_offset + _LOCAL_HEADER + name_len + current.compress_size
        boundary = following.header_offset if following is not None else limit
        if boundary is not None and end > boundary:
            raise _bomb(label, "its entries overlap (a known zip-bomb construction)")


def _ooxml_bytes(content: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as inner:
            return is_ooxml(inner.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def _unsafe_path(name: str) -> bool:
    name = name.replace("\\", "/")
    return (
        "\x00" in name
        or name.startswith("/")
        or bool(_DRIVE.match(name))
        or ".." in name.split("/")
    )


def _bomb(label: str, why: str) -> ExtractionError:
    return ExtractionError(
        ErrorCode.ZIP_BOMB, f"{label} was refused: {why} (a possible zip bomb)."
    )


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):,.0f} MB"
