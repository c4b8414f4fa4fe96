"""The child-process sandbox: same results as in-process, and every way a child
can go wrong (hang, stall, memory, crash, garbage) becomes a clean error while
the calling process carries on (UPL-01)."""

from __future__ import annotations

import os
import resource
import signal
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from docuiq.testing import pdfgen
from ingest.errors import ExtractionError
from ingest.extractors import extract
from ingest.limits import Limits
from ingest.sandbox import (
    extract_in_child,
    page_char_boxes_in_child,
    render_page_png_in_child,
)

LIMITS = Limits()
HERE = "ingest.tests.test_sandbox"


# -- stand-ins for `extract`, run inside the child via `_entry` --------------


def hang(path, **kwargs):
    time.sleep(600)


def stall_after_first_page(path, *, on_progress, **kwargs):
    on_progress(1, 10)
    time.sleep(600)


def allocate(path, **kwargs):
    blocks = []
    while True:
        blocks.append(bytearray(64 * 1024 * 1024))


def segfault(path, **kwargs):
    os.kill(os.getpid(), signal.SIGSEGV)


def noisy(path, **kwargs):
    os.write(1, b"a C library printing to stdout\n")
    print("print() to stdout")
    return extract(path, **kwargs)


def report_pages(path, *, on_progress, **kwargs):
    for done in range(4):
        on_progress(done, 3)
    return extract(path, on_progress=None, **kwargs)


# -- helpers ------------------------------------------------------------------


def in_child(path: Path, limits: Limits = LIMITS, **kwargs):
    return extract_in_child(
        path,
        filename=kwargs.pop("filename", path.name),
        content_type=None,
        limits=limits,
        **kwargs,
    )


def expect_error(
    path: Path, code: str, limits: Limits = LIMITS, **kwargs
) -> ExtractionError:
    with pytest.raises(ExtractionError) as info:
        in_child(path, limits, **kwargs)
    assert info.value.code == code, info.value
    return info.value


@pytest.fixture(scope="module")
def prose(tmp_path_factory) -> Path:
    return pdfgen.prose_pdf(tmp_path_factory.mktemp("sandbox") / "prose.pdf", pages=40)


# -- results ------------------------------------------------------------------


def test_child_result_equals_in_process_result(prose):
    seen: list[tuple[int, int]] = []
    child = in_child(prose, on_progress=lambda d, t: seen.append((d, t)))
    local = extract(prose, filename=prose.name, content_type=None, limits=LIMITS)
    assert child == local
    assert seen[-1] == (40, 40) and len(seen) == 41  # progress is streamed back


def test_attachments_come_back_byte_for_byte(tmp_path):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@example.com", "b@example.com", "Files"
    msg.set_content("See attached.")
    blob = bytes(range(256)) * 1000
    msg.add_attachment(
        blob, maintype="application", subtype="octet-stream", filename="data.bin"
    )
    path = tmp_path / "m.eml"
    path.write_bytes(bytes(msg))
    result = in_child(path)
    [attachment] = result.attachments
    assert (attachment.filename, attachment.data) == ("data.bin", blob)


def test_extraction_errors_cross_the_process_boundary(tmp_path):
    error = expect_error(pdfgen.encrypted_pdf(tmp_path / "locked.pdf"), "encrypted")
    assert "password" in error.message


def test_output_from_c_libraries_cannot_corrupt_the_protocol(prose):
    assert len(in_child(prose, _entry=f"{HERE}:noisy").pages) == 40


def test_progress_is_passed_through(prose):
    seen: list[tuple[int, int]] = []
    in_child(
        prose,
        on_progress=lambda d, t: seen.append((d, t)),
        _entry=f"{HERE}:report_pages",
    )
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_geometry_and_rendering_in_a_child(prose):
    geometry = page_char_boxes_in_child(prose, 2, limits=LIMITS)
    assert geometry.text == in_child(prose).pages[1]
    assert len(geometry.boxes) == len(geometry.text)
    assert render_page_png_in_child(prose, 1, limits=LIMITS, scale=0.3).startswith(
        b"\x89PNG"
    )


# -- limits -------------------------------------------------------------------


def test_wall_clock_timeout_kills_a_hung_child(prose):
    started = time.monotonic()
    error = expect_error(prose, "timeout", Limits(timeout_s=1.0), _entry=f"{HERE}:hang")
    assert time.monotonic() - started < 5.0
    assert "1 seconds" in error.message


def test_tiny_time_limit_on_a_big_pdf(prose):
    expect_error(prose, "timeout", Limits(timeout_s=0.05))


def test_a_stalled_page_times_out_before_the_whole_budget(prose):
    started = time.monotonic()
    error = expect_error(
        prose,
        "timeout",
        Limits(timeout_s=60, page_timeout_s=0.5),
        _entry=f"{HERE}:stall_after_first_page",
    )
    assert time.monotonic() - started < 5.0
    assert "page" in error.message


def test_memory_limit_in_python_code(prose):
    started = time.monotonic()
    expect_error(
        prose,
        "too_complex",
        Limits(memory_bytes=512 * 2**20),
        _entry=f"{HERE}:allocate",
    )
    assert time.monotonic() - started < 10.0


def test_pdf_decompression_bomb_hits_the_memory_limit(tmp_path):
    bomb = pdfgen.flate_bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=512)
    assert bomb.stat().st_size < 1_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error = expect_error(bomb, "too_complex", Limits(memory_bytes=256 * 2**20))
    assert "256 MB" in error.message
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 50, "the bomb's memory was spent in the child, not here"


def test_a_crashing_child_is_reported_not_fatal(prose):
    expect_error(prose, "too_complex", _entry=f"{HERE}:segfault")


def test_the_caller_survives_every_failure_and_works_after(prose, tmp_path):
    for entry in ("hang", "segfault", "allocate"):
        with pytest.raises(ExtractionError):
            in_child(
                prose,
                Limits(timeout_s=1.0, memory_bytes=512 * 2**20),
                _entry=f"{HERE}:{entry}",
            )
    assert len(in_child(prose).pages) == 40


def test_the_child_gets_no_secrets(prose, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://user:secret@db/docuiq")
    result = in_child(prose, _entry=f"{HERE}:report_environment")
    assert "DATABASE_URL" not in result.metadata["environment"]


def report_environment(path, **kwargs):
    result = extract(path, **kwargs)
    result.metadata["environment"] = sorted(os.environ)
    return result
