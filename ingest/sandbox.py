"""Run extraction in a throwaway child process with memory and time limits.

Why a child process: parsers of hostile files can hang inside C code (where no
signal-based timeout fires), allocate without bound (a 1 KB PDF can claim
600 MB), or crash outright; a `MemoryError` can leave an interpreter in a bad
state. Only a separate process can be killed and forgotten (UPL-01), which is
what Apache Tika and Paperless-ngx do too.

How: `subprocess.Popen` starts a fresh ``python -I`` that imports only this
package (no Django), not `multiprocessing`: a Celery prefork worker is a daemonic
process, and daemonic processes may not have `multiprocessing` children, while
fork() of a worker would copy its database connections and threads. The child:

* sets ``RLIMIT_AS`` (memory), ``RLIMIT_CPU`` (a backstop to the wall clock),
  ``RLIMIT_FSIZE`` and ``RLIMIT_CORE=0`` before touching the file;
* gets a minimal environment (no database URL or secrets) and a private
  temporary directory as its working directory;
* reads one JSON request on stdin and writes JSON lines on its own copy of
  stdout (``progress``, then ``result`` or ``error``); fd 1 is pointed at stderr
  so that anything a C library prints cannot corrupt the protocol;
* hands attachments back as files in the temporary directory, not as JSON.

The parent enforces the wall-clock timeout and a per-page stall timeout, kills
the child's process group on expiry, and maps every way a child can die to an
`ExtractionError` (``timeout`` or ``too_complex``). Nothing is shared, so the
calling worker survives every input and its memory is unaffected.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ingest.errors import ErrorCode, ExtractionError
from ingest.extractors import Attachment, Extracted
from ingest.limits import Limits

if TYPE_CHECKING:
    from ingest.extractors.pdf import PageGeometry

__all__ = ["extract_in_child", "page_char_boxes_in_child", "render_page_png_in_child"]

logger = logging.getLogger(__name__)

_PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
_DEFAULT_ENTRY = "ingest.extractors:extract"
_ATTACHMENT_NAME = re.compile(r"^att-\d{1,6}$")
_READ_BLOCK = 1024 * 1024
_KILL_WAIT_S = 5.0
_STDERR_TAIL = 4000

ProgressCallback = Callable[[int, int], None]


def extract_in_child(
    path: Path,
    *,
    filename: str,
    content_type: str | None,
    limits: Limits,
    on_progress: ProgressCallback | None = None,
    _entry: str = _DEFAULT_ENTRY,
) -> Extracted:
    """`ingest.extractors.extract` in a child process; same result, same errors.

    Safe to call from a Celery prefork worker, a web request or a test. Raises
    ExtractionError with code ``timeout`` or ``too_complex`` when the child runs
    out of time or memory or dies. `_entry` ("module:function") lets tests run a
    misbehaving stand-in for `extract`.
    """
    request = {
        "op": "extract",
        "entry": _entry,
        "path": str(Path(path).resolve()),
        "filename": filename,
        "content_type": content_type,
    }
    with tempfile.TemporaryDirectory(prefix="docuiq-extract-") as workdir:
        reply = _run(request, limits, Path(workdir), on_progress)
        return _extracted(reply, Path(workdir))


def page_char_boxes_in_child(
    path: Path, page_number: int, *, limits: Limits
) -> PageGeometry:
    """`pdf.page_char_boxes` in a child process (for the web tier's document viewer)."""
    from ingest.extractors.pdf import PageGeometry

    request = {
        "op": "geometry",
        "path": str(Path(path).resolve()),
        "page_number": page_number,
    }
    with tempfile.TemporaryDirectory(prefix="docuiq-geometry-") as workdir:
        reply = _run(request, limits, Path(workdir), None)
    boxes = [tuple(b) if b is not None else None for b in reply["boxes"]]
    return PageGeometry(
        width=reply["width"], height=reply["height"], text=reply["text"], boxes=boxes
    )


def render_page_png_in_child(
    path: Path, page_number: int, *, limits: Limits, scale: float = 1.5
) -> bytes:
    """`pdf.render_page_png` in a child process."""
    request = {
        "op": "render",
        "path": str(Path(path).resolve()),
        "page_number": page_number,
        "scale": scale,
    }
    with tempfile.TemporaryDirectory(prefix="docuiq-render-") as workdir:
        _run(request, limits, Path(workdir), None)
        return (Path(workdir) / "page.png").read_bytes()


# -- parent side -------------------------------------------------------------


def _run(
    request: dict[str, Any],
    limits: Limits,
    workdir: Path,
    on_progress: ProgressCallback | None,
) -> Any:
    request = {**request, "limits": limits.to_dict(), "workdir": str(workdir)}
    command = [
        # Under an embedding server (uWSGI) sys.executable is not Python: allow an override.
        os.environ.get("DOCUIQ_SANDBOX_PYTHON") or sys.executable,
        "-I",  # isolated: ignore PYTHON* variables, user site-packages and the cwd
        "-B",
        "-c",
        f"import sys; sys.path.insert(0, {_PROJECT_ROOT!r}); "
        "from ingest.sandbox import child_main; sys.exit(child_main())",
    ]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
    }
    started = time.monotonic()
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=workdir,
            env=env,
            close_fds=True,
            start_new_session=True,  # its own process group, killed as one
        )
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.close()
            final = _read_replies(proc, proc.stdout, limits, started, on_progress)
        finally:
            _kill(proc)
        if final is None:
            stderr.seek(0, os.SEEK_END)
            stderr.seek(max(0, stderr.tell() - _STDERR_TAIL))
            raise _death(
                proc.returncode, stderr.read().decode("utf-8", "replace"), limits
            )
    if "error" in final:
        error = final["error"]
        try:
            raise ExtractionError(
                error.get("code", ""), str(error.get("message") or "") or None
            )
        except ValueError:  # an unknown code from a confused child
            raise ExtractionError(ErrorCode.CORRUPT) from None
    return final["result"]


def _read_replies(
    proc: subprocess.Popen[bytes],
    stdout: IO[bytes],
    limits: Limits,
    started: float,
    on_progress: ProgressCallback | None,
) -> dict[str, Any] | None:
    """Stream the child's JSON lines until it finishes or a limit is hit."""
    deadline = started + limits.timeout_s
    # Room for the largest legal result: text (JSON may escape each char to 6
    # bytes) plus metadata; beyond this the child is misbehaving.
    max_bytes = 6 * limits.max_total_chars + 16 * 1024 * 1024
    buffer = bytearray()
    received = 0
    last_progress: float | None = None
    final: dict[str, Any] | None = None
    fd = stdout.fileno()
    os.set_blocking(fd, False)
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            wait = deadline - now
            if last_progress is not None:
                wait = min(wait, last_progress + limits.page_timeout_s - now)
            if wait <= 0:
                raise _timeout(limits, stalled=deadline - now > 0)
            if not selector.select(timeout=wait):
                continue
            try:
                block = os.read(fd, _READ_BLOCK)
            except BlockingIOError:
                continue
            if not block:
                return final  # EOF: the child has exited or closed its end
            received += len(block)
            if received > max_bytes:
                raise ExtractionError(
                    ErrorCode.TOO_LARGE, "This file produced more text than allowed."
                )
            buffer += block
            while (newline := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[:newline])
                del buffer[: newline + 1]
                message = _decode(line)
                if message is None:
                    continue
                if "progress" in message:
                    done, total = _progress(message["progress"])
                    # The stall clock only runs once paging has started.
                    last_progress = time.monotonic() if total > 1 else None
                    if on_progress is not None:
                        on_progress(done, total)
                elif "result" in message or "error" in message:
                    final = message


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        logger.warning("extraction child wrote a non-JSON line (%d bytes)", len(line))
        return None
    return message if isinstance(message, dict) else None


def _progress(value: Any) -> tuple[int, int]:
    try:
        done, total = (int(v) for v in value)
    except (TypeError, ValueError):
        return 0, 0
    return max(0, done), max(0, total)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the group we created for this child
        except (ProcessLookupError, PermissionError):
            proc.kill()
    try:
        proc.wait(timeout=_KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        logger.error("extraction child %d did not exit after SIGKILL", proc.pid)


def _timeout(limits: Limits, *, stalled: bool) -> ExtractionError:
    if stalled:
        return ExtractionError(
            ErrorCode.TIMEOUT,
            f"One page took longer than {limits.page_timeout_s:g} seconds to read; the file was stopped.",
        )
    return ExtractionError(
        ErrorCode.TIMEOUT,
        f"Reading this file took longer than {limits.timeout_s:g} seconds and was stopped.",
    )


def _death(returncode: int | None, stderr_tail: str, limits: Limits) -> ExtractionError:
    logger.warning(
        "extraction child died (exit %s): %s", returncode, stderr_tail[-1000:]
    )
    if returncode is not None and returncode < 0 and -returncode == signal.SIGXCPU:
        return _timeout(limits, stalled=False)
    return ExtractionError(
        ErrorCode.TOO_COMPLEX,
        "This file is too large or too complex to process: reading it needed more than "
        f"{limits.memory_bytes // 2**20:,} MB of memory or crashed the reader.",
    )


def _extracted(reply: Any, workdir: Path) -> Extracted:
    if not isinstance(reply, dict) or not isinstance(reply.get("pages"), list):
        raise ExtractionError(ErrorCode.CORRUPT)
    metadata = reply.get("metadata")
    attachments = []
    for item in reply.get("attachments") or []:
        name = str(item.get("file", ""))
        if not _ATTACHMENT_NAME.match(name):
            continue  # never read a path the child made up
        attachments.append(
            Attachment(
                filename=str(item.get("filename", "attachment")),
                content_type=str(item.get("content_type", "application/octet-stream")),
                data=(workdir / name).read_bytes(),
            )
        )
    return Extracted(
        title=str(reply.get("title", "")),
        source_type=str(reply.get("source_type", "")),
        pages=[str(p) for p in reply["pages"]],
        metadata=metadata if isinstance(metadata, dict) else {},
        origin_url=reply.get("origin_url")
        if isinstance(reply.get("origin_url"), str)
        else None,
        attachments=attachments,
        attachment_errors=[
            (str(a), str(b)) for a, b in reply.get("attachment_errors") or []
        ],
    )


# -- child side --------------------------------------------------------------


def child_main() -> int:
    """Entry point of the child process (see the module docstring)."""
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message).encode() + b"\n")
        protocol.flush()

    _die_with_parent()
    request = json.loads(sys.stdin.buffer.readline())
    limits = Limits.from_dict(request["limits"])
    _set_rlimits(limits)
    workdir = Path(request["workdir"])
    try:
        result = _serve(request, limits, workdir, send)
        send({"result": result})
    except ExtractionError as exc:
        send({"error": exc.as_dict()})
    except (MemoryError, RecursionError):
        send({"error": ExtractionError(ErrorCode.TOO_COMPLEX).as_dict()})
    except Exception:
        logger.exception("extraction child failed")
        send({"error": ExtractionError(ErrorCode.CORRUPT).as_dict()})
    protocol.close()
    return 0


def _die_with_parent() -> None:
    """Ask Linux to kill this child if the worker that started it is killed first."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: RLIMIT_CPU and the closed pipe still end an orphan


def _set_rlimits(limits: Limits) -> None:
    import resource

    def cap(which: int, soft: int, hard: int | None = None) -> None:
        _, current_hard = resource.getrlimit(which)
        hard = soft if hard is None else hard
        if current_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, current_hard), min(hard, current_hard)
        resource.setrlimit(which, (soft, hard))

    cap(resource.RLIMIT_AS, limits.memory_bytes)
    # SIGXCPU at the soft limit, SIGKILL five seconds of CPU later.
    cpu = math.ceil(limits.timeout_s) + 5
    cap(resource.RLIMIT_CPU, cpu, cpu + 5)
    cap(resource.RLIMIT_CORE, 0)
    cap(
        resource.RLIMIT_FSIZE,
        limits.max_zip_total_bytes + limits.max_email_bytes + 64 * 1024 * 1024,
    )


def _serve(
    request: dict[str, Any],
    limits: Limits,
    workdir: Path,
    send: Callable[[dict[str, Any]], None],
) -> Any:
    op = request["op"]
    path = Path(request["path"])
    if op == "geometry":
        from ingest.extractors.pdf import page_char_boxes

        geometry = page_char_boxes(path, int(request["page_number"]))
        return {
            "width": geometry.width,
            "height": geometry.height,
            "text": geometry.text,
            "boxes": geometry.boxes,
        }
    if op == "render":
        from ingest.extractors.pdf import render_page_png

        png = render_page_png(
            path, int(request["page_number"]), scale=float(request["scale"])
        )
        (workdir / "page.png").write_bytes(png)
        return {}
    module_name, _, func_name = str(request.get("entry") or _DEFAULT_ENTRY).partition(
        ":"
    )
    import importlib

    entry = getattr(importlib.import_module(module_name), func_name)
    result: Extracted = entry(
        path,
        filename=request["filename"],
        content_type=request["content_type"],
        limits=limits,
        on_progress=lambda done, total: send({"progress": [done, total]}),
    )
    attachments = []
    for i, attachment in enumerate(result.attachments):
        name = f"att-{i}"
        (workdir / name).write_bytes(attachment.data)
        attachments.append(
            {
                "file": name,
                "filename": attachment.filename,
                "content_type": attachment.content_type,
            }
        )
    return {
        "title": result.title,
        "source_type": result.source_type,
        "pages": result.pages,
        "metadata": result.metadata,
        "origin_url": result.origin_url,
        "attachments": attachments,
        "attachment_errors": result.attachment_errors,
    }


if __name__ == "__main__":
    sys.exit(child_main())
