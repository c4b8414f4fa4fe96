"""Verify quotes from JSON lines (SPEC §3). No database writes.

Input, one object per line:  {"id", "document", "quote", "within": [start, end]?}
  document: a document id in the database (its current revision), or a path to
  a file (extracted exactly as ingestion would, so offsets agree with the app),
  or give "text" instead with the document's text inline (a form feed starts a
  new page).
Output, one object per line: {"id", "verified", "method", "match_type",
  "confidence", "start", "end", "page", "source_text", "reason",
  "candidate_start", "candidate_end", "candidate_page", "failure_kind"}.
  A failure's kind is "differs" when its passage was found and says
  something else (the candidate is that passage), else "not_found".
  "rule" names the rule that refused a failed quote (citations/cascade/
  rules.py; docs/verification.md).
With --explain each output object also carries "stages" (what each stage of
the cascade did, and the rule that decided), and a readable account of each
case goes to standard error.
A bad line gets an output line saying why; the run goes on.
"""

from __future__ import annotations

import json
import sys
import uuid
from functools import lru_cache
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from accounts.scoping import unscoped
from citations.cascade import verify_quote
from citations.cascade.rules import BY_ID
from citations.verdicts import configured_judges
from ingest.errors import ExtractionError
from ingest.models import Document
from ingest.normalize import normalize_pages
from ingest.sandbox import extract_in_child
from ingest.services import ingest_limits


class InputError(Exception):
    pass


def explanation(number: int, result: dict, stages) -> str:
    """A case's verdict in words: each stage tried, then the rule that
    decided, with what it refuses (rules.py)."""
    outcome = "verified" if result.get("verified") else "not verified"
    lines = [f"line {number} (id {result.get('id')!r}): {outcome} ({result['method']})"]
    for stage in stages:
        rule = f" [{stage['rule']}]" if stage.get("rule") else ""
        detail = f": {stage['detail']}" if stage.get("detail") else ""
        took = f" {stage['ms']} ms" if "ms" in stage else ""
        lines.append(f"  {stage['stage']}: {stage['outcome']}{rule}{took}{detail}")
    rule = BY_ID.get(result.get("rule") or "")
    if rule is not None:
        lines.append(f"  decided by {rule.id} ({rule.stage}): {rule.refuses}")
    elif not result.get("verified"):
        lines.append(f"  {result.get('reason')}")
    if result.get("failure_kind") == "differs":
        lines.append(
            f"  found, differs: the passage at [{result['candidate_start']}, "
            f"{result['candidate_end']}) (page {result['candidate_page']})"
        )
    return "\n".join(lines)


def _failure(case_id, reason: str) -> dict:
    return {
        "id": case_id,
        "verified": False,
        "method": "failed",
        "match_type": "not_found",
        "confidence": None,
        "start": None,
        "end": None,
        "page": None,
        "source_text": None,
        "reason": reason,
        "candidate_start": None,
        "candidate_end": None,
        "candidate_page": None,
        "failure_kind": "not_found",
        "rule": None,
    }


def _pages(text: str) -> tuple[int, ...]:
    """Where the pages of inline text start: a form feed ends a page."""
    if "\f" not in text:
        return ()
    return (0, *(i + 1 for i, c in enumerate(text) if c == "\f"))


# Longer than any path a file system takes (PATH_MAX on Linux).
MAX_PATH_CHARS = 4096


class Command(BaseCommand):
    help = "Verify quotes given as JSON lines (FILE or - for standard input)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", default="-")
        parser.add_argument(
            "--explain",
            action="store_true",
            help="add each stage and the rule that decided (stderr: readable)",
        )

    def handle(self, *args: object, **options: object) -> None:
        source = str(options["file"])
        base = Path.cwd() if source == "-" else Path(source).resolve().parent
        stream = sys.stdin if source == "-" else Path(source).open(encoding="utf-8")  # noqa: SIM115
        judge, ensemble = configured_judges()
        explain = bool(options.get("explain"))

        @lru_cache(maxsize=64)
        def load(document: str) -> tuple[str, tuple[int, ...]]:
            try:
                doc_id = uuid.UUID(document)
            except ValueError:
                doc_id = None
            if doc_id is not None:
                with unscoped():
                    found = (
                        Document.objects.select_related("current_revision")
                        .filter(pk=doc_id)
                        .first()
                    )
                if found is None or found.current_revision is None:
                    raise InputError(f"no ingested document {document}")
                revision = found.current_revision
                return revision.normalized_content, tuple(revision.page_starts)
            shown = document if len(document) <= 80 else document[:77] + "..."
            if len(document) > MAX_PATH_CHARS or "\x00" in document:
                raise InputError(
                    f"document is neither a document id nor a file path: {shown!r}"
                )
            try:
                path = (base / document).resolve()
                is_file = path.is_file()
            except (OSError, ValueError) as exc:
                # "File name too long" and the like: a bad line, not a crash.
                why = exc.strerror if isinstance(exc, OSError) else str(exc)
                raise InputError(f"cannot open {shown!r}: {why}") from exc
            if not is_file:
                raise InputError(f"no such file: {shown}")
            try:
                extracted = extract_in_child(
                    path, filename=path.name, content_type=None, limits=ingest_limits()
                )
            except ExtractionError as exc:
                raise InputError(exc.message) from exc
            text = normalize_pages(extracted.pages)
            return text.content, tuple(text.page_starts)

        try:
            for number, line in enumerate(stream, start=1):
                if not line.strip():
                    continue
                result = self._one(line, number, load, judge, ensemble)
                stages = result.pop("_stages", ())
                if explain:
                    result["stages"] = list(stages)
                    self.stderr.write(explanation(number, result, stages))
                self.stdout.write(json.dumps(result, ensure_ascii=False))
        finally:
            if stream is not sys.stdin:
                stream.close()

    def _one(self, line: str, number: int, load, judge, ensemble) -> dict:
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            return _failure(None, f"line {number}: invalid JSON ({exc.msg})")
        if not isinstance(case, dict):
            return _failure(None, f"line {number}: expected a JSON object")
        case_id = case.get("id")
        quote = case.get("quote")
        if not isinstance(quote, str) or not quote.strip():
            return _failure(case_id, "no quote given")
        try:
            if isinstance(case.get("text"), str):
                text, page_starts = case["text"], _pages(case["text"])
            elif isinstance(case.get("document"), str):
                text, page_starts = load(case["document"])
            else:
                return _failure(case_id, "give a document (id or path) or a text")
            within = case.get("within")
            if within is not None:
                if not (
                    isinstance(within, list)
                    and len(within) == 2
                    and all(isinstance(v, int) for v in within)
                    and 0 <= within[0] <= within[1] <= len(text)
                ):
                    return _failure(
                        case_id,
                        f"within must be [start, end] inside the text (0..{len(text)})",
                    )
                within = (within[0], within[1])
            verdict = verify_quote(
                text,
                quote,
                within=within,
                page_starts=list(page_starts) or None,
                judge=judge,
                ensemble=ensemble,
            )
        except InputError as exc:
            return _failure(case_id, f"line {number}: {exc}")
        except Exception as exc:  # one bad line never ends the run
            return _failure(
                case_id,
                f"line {number}: could not verify ({type(exc).__name__}: {exc})",
            )
        return {"id": case_id, **verdict.as_dict(), "_stages": verdict.stages}
