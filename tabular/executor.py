"""Run a review: every pending (document, column) cell, in parallel, each cited.

One delivery of the `run_review` task calls :func:`review_run`. It

1. takes the review over: a conditional UPDATE sets `running` and a fresh
   `run_token`; a review that is cancelled or finished is left alone, so a
   late redelivery is a no-op;
2. reclaims cells an earlier delivery left `running` (its worker died): they
   go back to `pending`, or fail once a cell has been lost
   ``MAX_CELL_ATTEMPTS`` times (a poison cell must not loop forever, CEL-05);
3. loads the documents in the operator's order: a missing, deleted or
   unfinished document keeps its row and its cells fail with the reason;
4. runs the pending cells on a thread pool of ``TABULAR_CONCURRENCY`` threads
   (cells are I/O bound). Offline a thread takes one cell at a time (the
   built-in reader on its top retrieved chunks); with a model it takes a
   row's pending cells, which share the document's reading and are asked in
   as few calls as fit (tabular.model_reading). A thread claims a cell with a
   conditional UPDATE (pending -> running under this delivery's token), so
   two deliveries never both work a cell, and writes the result only while
   the claim is still its own, so no cell is ever stored twice;
5. stops claiming when the review is cancelled or another delivery took it
   over (checked between cells), or when its time budget is spent (the task
   then queues a continuation);
6. aggregates: results JSON, token counts, cost and final status.

Each cell fails alone: a model error, a timeout, malformed JSON, an empty
answer or a bug ends that cell `failed` (confidence `failed`) with its error;
the run goes on.

Citations: the quote is checked by the citation cascade
(`citations.verdicts.quote_check`, as chat's citations are) against the cited
chunk (offline) or section (a model) first, before the cell is written; the
cell, its Message (role `cell`, no session), what was read as its sources
S1..Sn (the retrieved chunks, or each section's holder chunk;
`chat.sources.message_sources_create`), the citation row
(`citations.services.citations_record`) with its verdict and
CitationVerification row (`citations.verdicts.verdict_write`) are then written
in one transaction. So a cell is final the moment it appears (the grid never shows a
verdict changing after the fact), and a cell costs one write transaction, not
three (the 2,000-cell benchmark). Rows are written by the same services as
chat's, so
re-verification on a new revision (`citations.services`) works on them
unchanged. If a judge model is configured and unreachable, the citation is
stored pending and the `verify_citation` task finishes it.

Threads: Django connections are per thread; each pool thread closes its own
connection when it ends. Nothing holds a transaction open across a model call.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Count, F
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from chat.models import Message
from chat.sources import SourceChunk, message_sources_create
from citations import values
from citations.cascade import SourceText
from citations.extraction import CitationCandidate
from citations.models import MessageCitation, UnsourcedCitation
from citations.models import Status as CitationStatus
from citations.services import citation_verify, citations_rate, citations_record
from citations.verdicts import Checked, RevisionText, quote_check, verdict_write
from ingest.models import Document, DocumentChunk
from ingest.search.within import term_weights
from ingest.sections import Section, document_sections
from llm.errors import LLMBadResponse, LLMError
from tabular import column_types, confidence, model_reading, reading, retrieval
from tabular.models import Cell, Review, ReviewColumn, ReviewDocument

if TYPE_CHECKING:
    from accounts.models import Tenant

logger = logging.getLogger(__name__)

MAX_CELL_ATTEMPTS = 3
# How often threads re-read the review's status (cancel / take-over) and the
# run writes a heartbeat for the sweeper.
STATUS_CHECK_S = 0.5
HEARTBEAT_S = 5.0
CONTEXT_TYPE = "tabular"
# Documents (with their text) kept in memory per run; cells go row by row.
SOURCE_CACHE = 32


class CellFailure(Exception):
    """A cell cannot be answered; the message is shown on the cell."""


@dataclass
class RunOutcome:
    """What one delivery did. `more`: the time budget ran out with cells
    still pending (the caller queues a continuation)."""

    status: str
    done: int = 0
    failed: int = 0
    pending: int = 0
    ran: int = 0
    more: bool = False


# ------------------------------------------------------------------ pricing


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> Decimal:
    """Cost from settings.LLM_PRICES (USD per 1M tokens: prompt, completion).

    A dated model name ("gpt-4o-mini-2024-07-18") uses the longest listed
    prefix; unknown models and the extractive responder cost 0.
    """
    prices: dict[str, tuple[float, float]] = getattr(settings, "LLM_PRICES", {}) or {}
    price = prices.get(model)
    if price is None:
        prefixes = [name for name in prices if model.startswith(name)]
        if prefixes:
            price = prices[max(prefixes, key=len)]
    if price is None or not (prompt_tokens or completion_tokens):
        return Decimal("0")
    usd = (
        Decimal(str(price[0])) * prompt_tokens
        + Decimal(str(price[1])) * completion_tokens
    ) / Decimal(1_000_000)
    return usd.quantize(Decimal("0.000001"))


# ------------------------------------------------------------------ the run


@dataclass
class _Run:
    review: Review
    tenant: Tenant
    token: uuid.UUID
    provider: Any
    deadline: float | None
    on_cell: Callable[[], None] | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    rows: dict[int, ReviewDocument] = field(default_factory=dict)
    columns: dict[int, ReviewColumn] = field(default_factory=dict)
    sources: OrderedDict[int, _Source] = field(default_factory=OrderedDict)
    queries: dict[int, retrieval.CellQuery] = field(default_factory=dict)
    checked_at: float = 0.0
    heartbeat_at: float = 0.0
    ran: int = 0
    db_errors: int = 0

    @property
    def offline(self) -> bool:
        """The built-in reader answers (no model configured)."""
        return getattr(self.provider, "name", "") == "extractive"

    def still_ours(self) -> bool:
        """False once the review is cancelled or another delivery took over.

        Read at most every STATUS_CHECK_S, whichever thread asks first.
        """
        if self.stop.is_set():
            return False
        now = time.monotonic()
        with self.lock:
            if now - self.checked_at < STATUS_CHECK_S:
                return True
            self.checked_at = now
            beat = now - self.heartbeat_at >= HEARTBEAT_S
            if beat:
                self.heartbeat_at = now
        ours = Review.objects.filter(
            pk=self.review.pk, run_token=self.token, status=Review.Status.RUNNING
        )
        alive = ours.update(heartbeat_at=timezone.now()) > 0 if beat else ours.exists()
        if not alive:
            self.stop.set()
        return alive


def review_run(
    *,
    review_id: uuid.UUID | str,
    budget_s: float | None = None,
    concurrency: int | None = None,
    on_cell: Callable[[], None] | None = None,
) -> RunOutcome:
    """Run (or resume) a review; see the module docstring for the contract.

    Idempotent: cells already done or failed are never redone, a cancelled or
    finished review is left as it is. ``budget_s``: stop claiming cells after
    this many seconds (`more=True` then). ``on_cell`` is called (from the
    pool threads) after each cell this delivery finishes, for progress bars.
    A cell's failure raises nothing; an unexpected error outside the cells
    marks the review failed and re-raises.
    """
    with unscoped():
        review = Review.objects.select_related("tenant").filter(pk=review_id).first()
    if review is None:
        return RunOutcome(status="missing")
    tenant = review.tenant
    with tenant_scope(tenant):
        token = uuid.uuid4()
        now = timezone.now()
        taken = Review.objects.filter(pk=review.pk, status__in=Review.ACTIVE).update(
            status=Review.Status.RUNNING,
            run_token=token,
            deliveries=F("deliveries") + 1,
            heartbeat_at=now,
            started_at=Coalesce(F("started_at"), now),
            finished_at=None,
            error="",
        )
        if not taken:
            review.refresh_from_db()
            return RunOutcome(status=review.status)
        review.refresh_from_db()
        try:
            return _run(
                review,
                token,
                budget_s=budget_s,
                concurrency=concurrency,
                on_cell=on_cell,
            )
        except Exception as exc:
            logger.exception("tabular review %s failed", review.pk)
            Review.objects.filter(pk=review.pk, run_token=token).update(
                status=Review.Status.FAILED,
                error=f"The review stopped because of an internal error ({exc.__class__.__name__}).",
                finished_at=timezone.now(),
            )
            raise


def _run(
    review: Review,
    token: uuid.UUID,
    *,
    budget_s: float | None,
    concurrency: int | None,
    on_cell: Callable[[], None] | None = None,
) -> RunOutcome:
    from llm.configured import provider

    _reclaim(review, token)
    _load_documents(review)
    run = _Run(
        review=review,
        tenant=review.tenant,
        token=token,
        provider=provider(),
        deadline=(time.monotonic() + budget_s) if budget_s else None,
        on_cell=on_cell,
        rows={r.pk: r for r in ReviewDocument.objects.filter(review=review)},
        columns={c.pk: c for c in ReviewColumn.objects.filter(review=review)},
    )
    run.heartbeat_at = run.checked_at = time.monotonic()
    # A model server computes parallel_slots requests at once (one on a CPU
    # llama.cpp): more threads would only wait (llm.openai_compat).
    width = max(
        1,
        int(
            concurrency
            or min(
                getattr(settings, "TABULAR_CONCURRENCY", 8),
                getattr(run.provider, "parallel_slots", None) or 1_000_000,
            )
        ),
    )
    left: int | None = None
    try:
        while True:
            pending = list(
                Cell.objects.filter(review=review, status=Cell.Status.PENDING)
                .order_by("row__order", "column__order")
                .values_list("pk", "row_id", "column_id")
            )
            if not pending or run.stop.is_set():
                break
            if left is not None and len(pending) >= left:
                break  # no progress: leave the rest to the continuation / sweeper
            left = len(pending)
            # Cells re-run while this delivery works are picked up by the next pass.
            _run_cells(run, pending, width)
            # Cells this delivery claimed but could not finish (a database
            # error) go back to pending.
            Cell.objects.filter(
                review=review, status=Cell.Status.RUNNING, run_token=token
            ).update(status=Cell.Status.PENDING, run_token=None)
            if run.deadline is not None and time.monotonic() >= run.deadline:
                break
    except SoftTimeLimitExceeded:
        # Out of time: stop claiming; cells still in flight are reclaimed by
        # the continuation the task queues (their late writes are refused).
        run.stop.set()
        outcome = _outcome(review, run)
        outcome.more = True
        return outcome
    _verify_leftovers(review)
    if not Review.objects.filter(
        pk=review.pk, run_token=token, status=Review.Status.RUNNING
    ).exists():
        review.refresh_from_db()
        return _outcome(review, run)  # cancelled, or another delivery owns it
    if Cell.objects.filter(review=review, status=Cell.Status.PENDING).exists():
        Review.objects.filter(pk=review.pk, run_token=token).update(
            heartbeat_at=timezone.now()
        )
        outcome = _outcome(review, run)
        outcome.more = True
        return outcome
    review_aggregate(review, token=token)
    review.refresh_from_db()
    return _outcome(review, run)


def _outcome(review: Review, run: _Run) -> RunOutcome:
    counts = _counts(review)
    return RunOutcome(
        status=review.status,
        done=counts.get(Cell.Status.DONE, 0),
        failed=counts.get(Cell.Status.FAILED, 0),
        pending=counts.get(Cell.Status.PENDING, 0) + counts.get(Cell.Status.RUNNING, 0),
        ran=run.ran,
    )


def _counts(review: Review) -> dict[str, int]:
    rows = Cell.objects.filter(review=review).values("status").annotate(n=Count("pk"))
    return {row["status"]: row["n"] for row in rows}


def _reclaim(review: Review, token: uuid.UUID) -> None:
    """Cells another delivery left running: its worker is gone (we own the run now)."""
    stale = Cell.objects.filter(review=review, status=Cell.Status.RUNNING).exclude(
        run_token=token
    )
    lost = stale.filter(attempts__gte=MAX_CELL_ATTEMPTS).update(
        status=Cell.Status.FAILED,
        confidence=Cell.Confidence.FAILED,
        error=(
            f"The worker was lost {MAX_CELL_ATTEMPTS} times while extracting this cell; "
            "it was not retried again."
        ),
        finished_at=Now(),
    )
    back = stale.update(status=Cell.Status.PENDING, run_token=None)
    if lost or back:
        logger.warning(
            "tabular review %s: reclaimed %d cell(s) from a lost worker, failed %d",
            review.pk,
            back,
            lost,
        )


def _load_documents(review: Review) -> None:
    """Resolve each row's document; rows that cannot be read fail their cells."""
    rows = list(ReviewDocument.objects.filter(review=review).order_by("order"))
    documents = Document.objects.filter(pk__in=[r.document_uid for r in rows]).only(
        "id", "title", "status", "is_deleted", "current_revision_id"
    )
    by_id = {d.pk: d for d in documents}
    for row in rows:
        document = by_id.get(row.document_uid)
        if document is None:
            state, error = (
                ReviewDocument.State.MISSING,
                "No such document in this workspace (it may have been removed).",
            )
        elif document.is_deleted:
            state, error = ReviewDocument.State.DELETED, "The document was deleted."
        elif (
            document.status != Document.Status.READY
            or document.current_revision_id is None
        ):
            state = ReviewDocument.State.NOT_READY
            error = (
                "The document is not ready to read "
                f"(status: {document.get_status_display().lower()})."
            )
        else:
            state, error = ReviewDocument.State.READY, ""
        fields: dict[str, Any] = {"state": state, "error": error}
        if document is not None:
            fields["document_id"] = document.pk
            fields["title"] = document.title[:500]
        if any(getattr(row, k) != v for k, v in fields.items()):
            ReviewDocument.objects.filter(pk=row.pk).update(**fields)
        if state != ReviewDocument.State.READY:
            Cell.objects.filter(row=row, status=Cell.Status.PENDING).update(
                status=Cell.Status.FAILED,
                confidence=Cell.Confidence.FAILED,
                error=error,
                started_at=Now(),
                finished_at=Now(),
            )


def _work_items(
    run: _Run, items: list[tuple[int, int, int]]
) -> list[list[tuple[int, int, int]]]:
    """What one thread takes at a time: a cell for the offline reader; with
    a model, a row's pending cells (its columns share the document's reading,
    tabular.model_reading)."""
    if run.offline:
        return [[item] for item in items]
    rows: dict[int, list[tuple[int, int, int]]] = {}
    for item in items:
        rows.setdefault(item[1], []).append(item)
    return list(rows.values())


def _run_cells(run: _Run, items: list[tuple[int, int, int]], width: int) -> None:
    queue = deque(_work_items(run, items))

    def work() -> None:
        while not run.stop.is_set():
            if run.deadline is not None and time.monotonic() >= run.deadline:
                return
            try:
                item = queue.popleft()
            except IndexError:
                return
            try:
                if not run.still_ours():
                    return
                if run.offline:
                    finished = [_run_cell(run, *cell) for cell in item]
                else:
                    finished = _run_row(run, item)
                if run.on_cell is not None:
                    for _ in range(sum(finished)):
                        run.on_cell()
            except DatabaseError:
                # A database hiccup (lock timeout, lost connection) costs this
                # cell its turn, not the thread: it is retried below or by the
                # continuation.
                logger.exception(
                    "tabular review %s: cell %s hit a database error",
                    run.review.pk,
                    item[0],
                )
                with run.lock:
                    run.db_errors += 1

    if width == 1 or len(queue) == 1:
        work()  # in the caller's thread (and its connection / transaction)
        return

    def thread_main() -> None:
        try:
            with tenant_scope(run.tenant):
                work()
        finally:
            # Django opened a connection for this thread; nobody else will close it.
            connection.close()

    threads = [
        threading.Thread(target=thread_main, name=f"tabular-{i}", daemon=True)
        for i in range(min(width, len(queue)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# ------------------------------------------------------------------ one cell


@dataclass(frozen=True)
class _Source:
    """A document and its current revision's text, as the cells citing it
    need them."""

    document: Document
    text: RevisionText
    # With a model: the revision cut into sections it reads whole.
    sections: tuple[Section, ...] = ()


def _claim(run: _Run, cell_id: int) -> bool:
    """Take a pending cell for this delivery (False: someone else has it,
    or it finished meanwhile)."""
    claimed = Cell.objects.filter(pk=cell_id, status=Cell.Status.PENDING).update(
        status=Cell.Status.RUNNING,
        run_token=run.token,
        attempts=F("attempts") + 1,
        # The database's clock, at write time: the grid's poll asks for cells
        # changed since its last read, and a Python timestamp taken before a
        # lock wait could fall before that read and be missed.
        started_at=Now(),
        finished_at=None,
        error="",
    )
    if claimed:
        with run.lock:
            run.ran += 1
    return bool(claimed)


def _run_cell(run: _Run, cell_id: int, row_id: int, column_id: int) -> bool:
    """One cell by the offline reader: its top retrieved chunks, read."""
    if not _claim(run, cell_id):
        return False
    row, column = run.rows[row_id], run.columns[column_id]
    completion = None
    try:
        source = _source(run, row)
        query = _query(run, column)
        got = retrieval.retrieve(run.tenant, source.document, query)
        if not got.chunks:
            raise CellFailure("The document has no text to read.")
        answer, completion = _read_offline(column, got, source.document)
        verdict = _verify(source, got, answer) if answer["quote"] else None
        answer = _checked(column, got, answer, verdict, source.document)
    except (LLMError, CellFailure) as exc:
        _fail(run, cell_id, str(exc), _usage(completion))
    except Exception as exc:  # a bug must cost one cell, not the run
        logger.exception("tabular cell %s failed", cell_id)
        _fail(
            run,
            cell_id,
            f"Unexpected error while extracting this cell ({exc.__class__.__name__}).",
            _usage(completion),
        )
    else:
        usage = _usage(completion)
        passages = _Passages.retrieved(got, answer["cited_chunk_indices"])
        with _stored_or_failed(run, cell_id, usage):
            _store(run, cell_id, column, source, passages, answer, usage, verdict)
    return True


@contextmanager
def _stored_or_failed(run: _Run, cell_id: int, usage: dict[str, Any]) -> Iterator[None]:
    """Storing an answer: an error there costs this cell (failed), not the run."""
    try:
        yield
    except Exception as exc:
        logger.exception("tabular cell %s could not be stored", cell_id)
        _fail(
            run,
            cell_id,
            f"The answer could not be stored ({exc.__class__.__name__}).",
            usage,
        )


def _run_row(run: _Run, items: list[tuple[int, int, int]]) -> list[bool]:
    """A row's pending cells by the model: the document read whole (or by
    its best sections), its columns asked together where they fit
    (tabular.model_reading), each answer verified, checked and stored alone."""
    claimed = [
        (cell_id, column_id) for cell_id, _, column_id in items if _claim(run, cell_id)
    ]
    finished = [False] * (len(items) - len(claimed)) + [True] * len(claimed)
    if not claimed:
        return finished
    row = run.rows[items[0][1]]
    try:
        source = _source(run, row)
        if not source.sections:
            raise CellFailure("The document has no text to read.")
        results = _read_row(
            run,
            source,
            [(cell_id, run.columns[column_id]) for cell_id, column_id in claimed],
        )
    except CellFailure as exc:
        for cell_id, _ in claimed:
            _fail(run, cell_id, str(exc), None)
        return finished
    except Exception as exc:  # a bug must cost this row, not the run
        logger.exception("tabular row %s failed", row.pk)
        for cell_id, _ in claimed:
            _fail(
                run,
                cell_id,
                f"Unexpected error while extracting this cell ({exc.__class__.__name__}).",
                None,
            )
        return finished
    for cell_id, column_id in claimed:
        column = run.columns[column_id]
        got, read = results[cell_id]
        usage = _read_usage(read)
        if isinstance(got, Exception):
            _fail(run, cell_id, str(got), usage)
            continue
        try:
            verdict = _verify_in_section(source, read, got) if got.quote else None
            answer = _checked_model(column, got, verdict, read)
        except Exception as exc:
            logger.exception("tabular cell %s failed", cell_id)
            _fail(
                run,
                cell_id,
                f"Unexpected error while checking this cell ({exc.__class__.__name__}).",
                usage,
            )
            continue
        passages = _Passages.read(read, got)
        with _stored_or_failed(run, cell_id, usage):
            _store(run, cell_id, column, source, passages, answer, usage, verdict)
    return finished


_Result = tuple["model_reading.ModelAnswer | Exception", "model_reading.Read"]


def _asked(key: int, column: ReviewColumn) -> model_reading.Asked:
    """A column as a model reading the document is asked it: the question
    with its answer format, and its type as the model client knows it."""
    return model_reading.Asked(
        key=key,
        question=_question(column),
        column_type=column_types.type_of(column.type).provider_type,
    )


def _read_row(
    run: _Run, source: _Source, cells: list[tuple[int, ReviewColumn]]
) -> dict[int, _Result]:
    """Each cell's answer (or the error that stopped it) and what was read.

    Whole when the document fits the budget: its columns in calls of
    TABULAR_COLUMNS_PER_CALL, a column the reply left out (or a malformed
    row reply) asked again alone. Over budget: each column alone, its best
    sections first, then the next unread ones while nothing is found."""
    from llm.configured import llm_config

    config = llm_config()
    document, sections = source.document, source.sections
    asked = [_asked(cell_id, column) for cell_id, column in cells]
    columns = dict(cells)

    def budget(group: list[model_reading.Asked]) -> int:
        return model_reading.reading_budget(
            config, title=document.title, source_type=document.source_type, asked=group
        )

    def ask(group, batch):
        return model_reading.ask(
            run.provider,
            config,
            title=document.title,
            source_type=document.source_type,
            sections=batch,
            sections_total=len(sections),
            asked=group,
        )

    whole = model_reading.section_tokens(sections)
    out: dict[int, _Result] = {}
    if whole <= budget(asked[:1]):
        width = max(1, int(getattr(settings, "TABULAR_COLUMNS_PER_CALL", 4)))
        while width > 1 and whole > budget(asked[:width]):
            width -= 1
        groups = [asked[i : i + width] for i in range(0, len(asked), width)]
        reads = {a.key: model_reading.Read(len(sections)) for a in asked}
        while groups:
            group = groups.pop(0)
            completion = None
            try:
                answers, completion = ask(group, sections)
            except (LLMError, model_reading.ReplyProblem) as exc:
                if len(group) > 1 and isinstance(
                    exc, LLMBadResponse | model_reading.ReplyProblem
                ):
                    answers = {}  # a malformed row reply: each column alone
                else:
                    for a in group:
                        out[a.key] = (exc, reads[a.key])
                    continue
            for share, a in enumerate(group):
                read = reads[a.key]
                read.add(sections)
                if completion is not None:
                    read.completions.append((completion, len(group), share))
                if a.key in answers:
                    out[a.key] = (answers[a.key], read)
                elif len(group) > 1:
                    groups.append([a])  # left out of the row's reply: alone
                else:
                    out[a.key] = (
                        CellFailure("The model's reply has no answer for this column."),
                        read,
                    )
        return out
    for a in asked:
        out[a.key] = _read_in_sections(run, source, columns[a.key], a, budget([a]), ask)
    return out


def _read_in_sections(
    run: _Run,
    source: _Source,
    column: ReviewColumn,
    asked: model_reading.Asked,
    budget: int,
    ask: Callable[..., Any],
) -> _Result:
    """A document over budget, for one column: its best sections by the
    column's within-document retrieval (generous: the whole candidate pool),
    then the next unread sections in further calls while the model finds
    nothing, up to MAX_READS calls. What was read is in the Read: "not
    found" covers the document only if every section was."""
    got = retrieval.retrieve(
        run.tenant,
        source.document,
        _query(run, column),
        k=retrieval.POOL,
        pool=2 * retrieval.POOL,
    )
    order = model_reading.section_order(
        source.sections, [c.start_offset for c in got.chunks]
    )
    read = model_reading.Read(len(source.sections))
    answer: model_reading.ModelAnswer | Exception = CellFailure(
        "The model read nothing of this document."
    )
    for _ in range(model_reading.MAX_READS):
        batch = model_reading.next_batch(order, set(read.sections), budget)
        if not batch:
            break
        try:
            answers, completion = ask([asked], batch)
        except (LLMError, model_reading.ReplyProblem) as exc:
            if isinstance(answer, Exception):
                answer = exc
            break  # an earlier call's "not found" stands, for what it read
        read.add(batch)
        read.completions.append((completion, 1, 0))
        answer = answers.get(asked.key) or CellFailure(
            "The model's reply has no answer for this column."
        )
        if (
            isinstance(answer, Exception)
            or answer.found
            or answer.contradiction
            or read.whole
        ):
            break
    return answer, read


def _source(run: _Run, row: ReviewDocument) -> _Source:
    """The row's document and current revision text; a small per-run LRU
    (cells run row by row, so a document's columns share one load)."""
    with run.lock:
        cached = run.sources.get(row.pk)
        if cached is not None:
            run.sources.move_to_end(row.pk)
            return cached
    document = (
        Document.objects.filter(pk=row.document_uid, is_deleted=False)
        .select_related("current_revision")
        .only(
            "id",
            "tenant_id",
            "title",
            "source_type",
            "current_revision_id",
            "current_revision__id",
            "current_revision__file_id",
            "current_revision__normalized_content",
            "current_revision__page_starts",
        )
        .first()
    )
    if document is None or document.current_revision is None:
        raise CellFailure("The document was deleted or has no text.")
    source = _Source(
        document=document,
        text=RevisionText.of(document.current_revision),
        sections=() if run.offline else tuple(document_sections(document)),
    )
    with run.lock:
        run.sources[row.pk] = source
        while len(run.sources) > SOURCE_CACHE:
            run.sources.popitem(last=False)
    return source


def _query(run: _Run, column: ReviewColumn) -> retrieval.CellQuery:
    with run.lock:
        cached = run.queries.get(column.pk)
    if cached is None:
        cached = retrieval.build_query(
            name=column.name,
            question=column.question,
            description=column.description,
            kind=column.type,
        )
        with run.lock:
            run.queries[column.pk] = cached
    return cached


def _question(column: ReviewColumn) -> str:
    """What the model is asked: the question, with the column's name, its
    meaning and the answer's format."""
    parts = [column.question.strip()]
    if (
        column.name.strip()
        and column.name.strip().lower() not in column.question.lower()
    ):
        parts.append(f"(Column: {column.name.strip()})")
    if column.description.strip():
        parts.append(f"Meaning: {column.description.strip()}")
    kind = column_types.type_of(column.type)
    answer_format = kind.answer_format
    if kind.key == column_types.OPTIONS and column.options:
        answer_format += ": " + " | ".join(column.options)
    parts.append(f"Answer format: {answer_format} (for example: {kind.example}).")
    return "\n".join(parts)


def _read_offline(
    column: ReviewColumn, got: retrieval.Retrieved, document: Document
) -> tuple[dict[str, Any], Any]:
    """The offline reader's answer (tabular.reading), in the model's shape."""
    from llm.types import Completion

    started = time.monotonic()
    got_reading = reading.read_cell(
        question=column.question,
        name=column.name,
        weights=_weights(column, document),
        column_type=column.type,
        passages=[
            reading.Passage(index=c.chunk_index, text=c.content, rank=rank)
            for rank, c in enumerate(got.chunks)
        ],
        options=column.options or (),
    )
    answer = {
        "value": got_reading.value,
        "quote": got_reading.quote,
        "confidence": "",
        "justification": got_reading.justification + " (Built-in reader: no model.)",
        "cited_chunk_indices": [got_reading.chunk_index]
        if got_reading.chunk_index is not None
        else [],
        "invalid_chunk_indices": [],
        "source": "offline",
        "found": got_reading.found,
        "typed": got_reading.typed,
        "reading": got_reading,
    }
    completion = Completion(
        text=got_reading.quote,
        model="extractive",
        prompt_tokens=0,
        completion_tokens=0,
        finish_reason="stop",
        latency_s=time.monotonic() - started,
    )
    return answer, completion


def _weights(column: ReviewColumn, document: Document) -> dict[str, float]:
    """How rare the column's words are in this document (its chunks' IDF,
    cached per revision): the relevance judge counts rare words more."""
    return term_weights([document], reading.column_text(column.question, column.name))


def _checked(
    column: ReviewColumn,
    got: retrieval.Retrieved,
    answer: dict[str, Any],
    verified: _Verified | None,
    document: Document,
) -> dict[str, Any]:
    """The offline reader's answer (`_read_offline`; a model's answer is
    `_checked_model`'s) with what the product checks itself: the typed value,
    its support by the verified quote, the quoted passage's relevance, and
    the calibrated confidence (tabular.confidence)."""
    kind = column_types.type_of(column.type)
    options = column.options or ()
    found = answer["found"]
    if found:
        typed = answer["typed"]
    else:
        typed = False if kind.value_kind == values.YES_NO else None
    checked = verified.checked if verified is not None else None
    verdict = checked.verdict if checked is not None else None
    is_verified = bool(verdict is not None and verdict.verified)
    against = verdict.source_text if is_verified else ""
    support = (
        reading.value_support(column.type, answer["value"], against, options)
        if found
        else None
    )
    judge = reading.judge_for(
        column.question, column.type, column.name, _weights(column, document)
    )
    rated = None
    if verified is not None:
        rated = judge.rate(verified.cited.content)
    facts_reading = answer["reading"]
    # What was read, rated: the offline reader rated the passages it read;
    # the others are rated only to say why nothing was found.
    ratings = {p["chunk_index"]: p for p in facts_reading.searched}
    searched = []
    for rank, chunk in enumerate(got.chunks):
        known = ratings.get(chunk.chunk_index)
        if known is None and not found:
            rating = judge.rate(chunk.content)
            known = {"label": rating.label, "score": rating.score}
        searched.append(
            {
                "page": chunk.page_start,
                "label": known["label"] if known else "",
                "score": known["score"] if known else None,
                "chunk_index": chunk.chunk_index,
                "rank": rank,
            }
        )
    facts = confidence.CellFacts(
        source="offline",
        found=found,
        kind=kind.value_kind,
        verified=is_verified,
        method=verdict.method if verdict is not None else "",
        support=support.state if support else "",
        relevance=rated.label if rated else facts_reading.passage_label,
        relevance_score=rated.score if rated else 0.0,
        sentence_score=facts_reading.sentence_score,
        model_confidence="",
        rank=facts_reading.rank,
        agree=facts_reading.agree,
        rivals=facts_reading.rivals,
        role=facts_reading.role,
        reading=facts_reading.rule,
    )
    band, rule = confidence.calibrate(facts)
    value = answer["value"]
    if found and typed is not None and kind.value_kind != values.PARTY:
        # The short, normalised form: "90 days" for "ninety (90) days".
        value = column_types.typed_display(column_types.typed_json(typed)) or value
    if not found and kind.value_kind == values.YES_NO:
        value = "No"
    return {
        **answer,
        "value": value,
        "outcome": Cell.Outcome.ANSWERED if found else Cell.Outcome.NOT_FOUND,
        "typed_value": column_types.typed_json(typed)
        if found or typed is False
        else None,
        "support": support.state if support else "",
        "support_reason": support.reason if support else "",
        "model_confidence": "",
        "confidence": band,
        "confidence_rule": rule,
        "relevance": rated,
        "searched": {
            "terms": [c.word for c in judge.concepts],
            "passages": searched,
            # The facts the confidence was calibrated on, for the audit.
            "facts": {
                k: v
                for k, v in facts.__dict__.items()
                if k not in ("source", "found", "kind")
            },
        },
    }


def _model_support(
    column: ReviewColumn, answer: model_reading.ModelAnswer, against: str
) -> reading.Support:
    """Does the verified quote (`against`: its text as found, "" when the
    quote did not verify or there is none) support the model's value?

    Only a verified quote that states the value supports it: no quote, of a
    value of any length, is unsupported. A figure, date, place or party is
    checked against the quote's own words (`reading.value_support`); what
    words cannot prove (a yes/no, an option, text without figures) rests on
    the model's own reading of the quote it gave: whether that quote answers
    the question asked, not whether it shares its words."""
    support = reading.value_support(
        column.type, answer.value, against, column.options or ()
    )
    if not against or support.state == "unsupported":
        return support
    proved = support.state == "supported" and column_types.type_of(
        column.type
    ).value_kind not in (values.YES_NO, column_types.OPTIONS)
    if proved:
        return support
    if answer.quote_answers:
        return reading.Support(
            "supported", "The model read the verified quote as answering the question."
        )
    return reading.Support(
        "unsupported",
        "The model did not read its quote as answering the question: check the clause.",
    )


def _checked_model(
    column: ReviewColumn,
    answer: model_reading.ModelAnswer,
    verified: _Verified | None,
    read: model_reading.Read,
) -> dict[str, Any]:
    """A model's answer with what the product checks itself: the quote
    verified, the value supported by it, the model's own relevance for the
    quote, "not found" only as far as the model read, a self-contradicting
    answer flagged, and the calibrated confidence (tabular.confidence)."""
    from citations.relevance import Relevance

    kind = column_types.type_of(column.type)
    contradiction = answer.contradiction
    found = answer.found and not contradiction
    answered = found or bool(contradiction)
    checked = verified.checked if verified is not None else None
    verdict = checked.verdict if checked is not None else None
    is_verified = bool(verdict is not None and verdict.verified)
    against = verdict.source_text if is_verified else ""
    if contradiction:
        support: reading.Support | None = reading.Support(
            "unsupported", f"{contradiction} Check the document."
        )
    elif found:
        support = _model_support(column, answer, against)
    else:
        support = None
    absent_whole = not answered and read.whole
    if answered and answer.value:
        typed = column_types.read_typed(answer.value, column.type, column.options or ())
    else:
        # A clause the whole document lacks answers a yes/no "No"; a part
        # read answers nothing.
        typed = False if absent_whole and kind.value_kind == values.YES_NO else None
    label = ""
    if answer.quote:
        label = "answers" if answer.quote_answers else "related"
    rated = (
        Relevance(label=label, score=1.0 if answer.quote_answers else 0.5, rule="model")
        if label
        else None
    )
    facts = confidence.CellFacts(
        source="model",
        found=found,
        kind=kind.value_kind,
        verified=is_verified,
        method=verdict.method if verdict is not None else "",
        support=support.state if support else "",
        relevance=label,
        relevance_score=rated.score if rated else 0.0,
        model_confidence=answer.confidence,
        read_whole=read.whole,
        contradiction=bool(contradiction),
    )
    band, rule = confidence.calibrate(facts)
    value = answer.value if answered else ""
    if found and typed is not None and kind.value_kind != values.PARTY:
        # The short, normalised form: "90 days" for "ninety (90) days".
        value = column_types.typed_display(column_types.typed_json(typed)) or value
    if typed is False and not answered:
        value = "No"
    described = read.describe()
    searched: dict[str, Any] = {
        "read": described,
        "facts": {
            k: v
            for k, v in facts.__dict__.items()
            if k not in ("source", "found", "kind")
        },
    }
    if contradiction:
        searched["contradiction"] = contradiction
    return {
        "value": value,
        "quote": answer.quote,
        "justification": answer.justification,
        "outcome": Cell.Outcome.ANSWERED if answered else Cell.Outcome.NOT_FOUND,
        "typed_value": column_types.typed_json(typed) if typed is not None else None,
        "support": support.state if support else "",
        "support_reason": support.reason if support else "",
        "model_confidence": answer.confidence,
        "confidence": band,
        "confidence_rule": rule,
        "relevance": rated,
        "relevance_method": "model",
        "searched": searched,
        "payload": {
            "found": answer.found,
            "quote_answers": answer.quote_answers,
            "section_index": answer.section.index if answer.section else None,
            "read": described,
        },
    }


def _fail(run: _Run, cell_id: int, error: str, usage: dict[str, Any] | None) -> None:
    fields: dict[str, Any] = {
        "status": Cell.Status.FAILED,
        "confidence": Cell.Confidence.FAILED,
        "error": error[:2000],
        "finished_at": Now(),
    }
    if usage:  # the call happened: its tokens are spent
        fields.update(usage)
    Cell.objects.filter(
        pk=cell_id, run_token=run.token, status=Cell.Status.RUNNING
    ).update(**fields)


def _usage(completion: Any) -> dict[str, Any]:
    """A call's tokens and cost ({} when no call was answered)."""
    if completion is None:
        return {}
    return _priced(
        str(getattr(completion, "model", "") or ""),
        int(getattr(completion, "prompt_tokens", 0) or 0),
        int(getattr(completion, "completion_tokens", 0) or 0),
    )


def _priced(model: str, prompt: int, output: int) -> dict[str, Any]:
    return {
        "model_name": model[:200],
        "prompt_tokens": prompt,
        "completion_tokens": output,
        "cost_usd": cost_usd(model, prompt, output),
    }


def _share(total: int, parts: int, index: int) -> int:
    """The `index`-th of `parts` near-equal integer shares of `total` (the
    shares add up to it exactly)."""
    return total // parts + (1 if index < total % parts else 0)


def _read_usage(read: model_reading.Read) -> dict[str, Any]:
    """A cell's tokens: its share of each call that read for it (a row call
    is shared by the columns it asked), so a review's totals are the calls'."""
    if not read.completions:
        return {}
    prompt = output = 0
    for completion, parts, index in read.completions:
        prompt += _share(int(completion.prompt_tokens or 0), parts, index)
        output += _share(int(completion.completion_tokens or 0), parts, index)
    return _priced(str(read.completions[-1][0].model or ""), prompt, output)


# ------------------------------------------------------------------ citation


@dataclass(frozen=True)
class _Verified:
    """The cascade's verdict on a cell's quote (None checked: a judge was
    unreachable, so the citation is stored pending for the verify task)."""

    checked: Checked | None
    cited: DocumentChunk
    ref: str
    # The cited passage's span in the revision (the chunk's, or the section's).
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class _Passages:
    """What a cell's answer was read from: its message's sources S1..Sn (the
    retrieved chunks, or the holder chunk of each section read), the ones
    cited, and refs the model cited but was never given."""

    chunks: list[DocumentChunk]
    scores: list[float]
    fallback: bool
    cited: list[DocumentChunk]
    unsourced: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def retrieved(cls, got: retrieval.Retrieved, cited: list[int]) -> _Passages:
        by_index = {c.chunk_index: c for c in got.chunks}
        return cls(
            chunks=list(got.chunks),
            scores=list(got.scores),
            fallback=got.fallback,
            cited=[by_index[i] for i in cited if i in by_index],
        )

    @classmethod
    def read(
        cls, read: model_reading.Read, answer: model_reading.ModelAnswer
    ) -> _Passages:
        holders = _holders(read)
        cited = [answer.section.chunk] if answer.section is not None else []
        unsourced = []
        if answer.invalid_section is not None:
            unsourced.append(
                (
                    f"section {answer.invalid_section}",
                    f"The model cited section {answer.invalid_section}, "
                    "which it was not given.",
                )
            )
        return cls(
            chunks=holders,
            scores=[0.0] * len(holders),
            fallback=False,
            cited=cited,
            unsourced=unsourced,
        )


def _holders(read: model_reading.Read) -> list[DocumentChunk]:
    """The holder chunk of each section read, once each, in document order."""
    seen: dict[int, DocumentChunk] = {}
    for section in read.read:
        seen.setdefault(section.chunk.pk, section.chunk)
    return list(seen.values())


def _verify_in_section(
    source: _Source, read: model_reading.Read, answer: model_reading.ModelAnswer
) -> _Verified:
    """The cascade on a model's quote: within the section it cites, then the
    whole revision (the cascade's own order). A quote citing no section it was
    given is looked for in the whole revision, under the first section read."""
    holders = _holders(read)
    refs = {c.pk: f"S{i}" for i, c in enumerate(holders, start=1)}
    section = answer.section or read.read[0]
    span = (section.start, section.end) if answer.section is not None else None
    ref = refs[section.chunk.pk]
    try:
        checked = quote_check(
            answer.quote, cited=source.text.source(ref, span), high_stakes=True
        )
    except LLMError:
        checked = None
    return _Verified(checked=checked, cited=section.chunk, ref=ref, span=span)


def _verify(
    source: _Source, got: retrieval.Retrieved, answer: dict[str, Any]
) -> _Verified:
    """Run the citation cascade on the quote, against the cited chunk first.

    Writes nothing (an optional judge call is the only I/O), so it runs
    before the cell's write transaction: no transaction is held across a
    model call.
    """
    refs = {c.chunk_index: f"S{i}" for i, c in enumerate(got.chunks, start=1)}
    by_index = {c.chunk_index: c for c in got.chunks}
    cited_list = [by_index[i] for i in answer["cited_chunk_indices"] if i in by_index]
    # A quote without a (valid) chunk number is checked against the top
    # passage first, then the whole document (the cascade's own order).
    cited = cited_list[0] if cited_list else got.chunks[0]

    def text_of(chunk: DocumentChunk) -> SourceText:
        return source.text.source(
            refs[chunk.chunk_index], (chunk.start_offset, chunk.end_offset)
        )

    try:
        # A review is the high-stakes operation seed 000 names: a configured
        # ensemble decides with its quorum where stages 1-2 do not verify.
        checked = quote_check(
            answer["quote"],
            cited=text_of(cited),
            others=[text_of(c) for c in got.chunks if c is not cited],
            high_stakes=True,
        )
    except LLMError:
        checked = None
    return _Verified(
        checked=checked,
        cited=cited,
        ref=refs[cited.chunk_index],
        span=(cited.start_offset, cited.end_offset),
    )


def _store(
    run: _Run,
    cell_id: int,
    column: ReviewColumn,
    source: _Source,
    passages: _Passages,
    answer: dict[str, Any],
    usage: dict[str, Any],
    checked: _Verified | None,
) -> None:
    """Write the answer with its message, sources and verified citation, in
    one transaction that commits only while this delivery owns the cell."""
    usage = {"model_name": "", "prompt_tokens": 0, "completion_tokens": 0, **usage}
    cited = passages.cited
    citation = None
    try:
        with transaction.atomic():
            message = Message.objects.create(
                tenant_id=run.tenant.pk,
                session=None,
                role=Message.Role.CELL,
                content=answer["value"],
                payload={
                    "tabular": {
                        "review_id": str(run.review.pk),
                        "cell_id": cell_id,
                        "column": column.name,
                        "document_id": str(source.document.pk),
                    },
                    "answer": answer["value"],
                    "outcome": answer["outcome"],
                    "typed_value": answer["typed_value"],
                    "confidence": answer["confidence"],
                    "model_confidence": answer["model_confidence"],
                    "confidence_rule": answer["confidence_rule"],
                    "justification": answer["justification"],
                    "quote": answer["quote"],
                    "cited_chunk_indices": [c.chunk_index for c in cited],
                    "unsourced": [label for label, _ in passages.unsourced],
                    **answer.get("payload", {}),
                },
                model_name=usage["model_name"],
                prompt_tokens=usage["prompt_tokens"],
                completion_tokens=usage["completion_tokens"],
            )
            sources = message_sources_create(
                message=message,
                chunks=[
                    SourceChunk(
                        chunk=chunk,
                        document=source.document,
                        file_id=source.text.file_id,
                        score=passages.scores[rank]
                        if rank < len(passages.scores)
                        else 0.0,
                    )
                    for rank, chunk in enumerate(passages.chunks)
                ],
            )
            if checked is not None:
                (citation,) = citations_record(
                    message=message,
                    candidates=[
                        CitationCandidate(
                            ref=checked.ref,
                            quote=answer["quote"],
                            answer_start=None,
                            answer_end=None,
                            kind="cell",
                        )
                    ],
                    sources=sources,
                    context_type=CONTEXT_TYPE,
                    context_id=str(run.review.pk),
                    texts={source.text.revision_id: source.text},
                ).citations
                if checked.checked is not None:
                    verdict_write(
                        citation,
                        checked.checked,
                        source.text,
                        within=checked.span,
                        trigger="initial",
                    )
                rated = answer.get("relevance")
                if rated is not None:
                    # The quote's relevance to the column's question, stored
                    # as chat stores it (the marks, the review tab): the
                    # model's own word, or offline the word rater's.
                    citations_rate(
                        citations=[citation],
                        rate=lambda _text: rated,
                        method=answer.get("relevance_method", "offline"),
                    )
            if passages.unsourced:
                # Refs the model cited but was never shown (LLM-01): kept, flagged.
                UnsourcedCitation.objects.bulk_create(
                    [
                        UnsourcedCitation(
                            tenant_id=run.tenant.pk,
                            message=message,
                            ref_label=label[:32],
                            reason=reason,
                            execution_context_type=CONTEXT_TYPE,
                            execution_context_id=str(run.review.pk),
                        )
                        for label, reason in passages.unsourced
                    ]
                )
            written = Cell.objects.filter(
                pk=cell_id, run_token=run.token, status=Cell.Status.RUNNING
            ).update(
                status=Cell.Status.DONE,
                outcome=answer["outcome"],
                value=answer["value"],
                typed_value=answer["typed_value"],
                support=answer["support"],
                support_reason=answer["support_reason"][:2000],
                confidence=answer["confidence"],
                model_confidence=answer["model_confidence"][:8],
                confidence_rule=answer["confidence_rule"][:64],
                searched=answer["searched"],
                justification=answer["justification"][:5000],
                quote=answer["quote"],
                error="",
                message=message,
                citation=citation,
                retrieved_chunk_ids=[str(c.uid) for c in passages.chunks],
                cited_chunk_ids=[str(c.uid) for c in cited],
                used_fallback=passages.fallback,
                finished_at=Now(),
                **usage,
            )
            if not written:
                raise _ClaimLost
    except _ClaimLost:
        return  # another delivery reclaimed this cell: its answer wins
    if citation is not None and citation.verification_status == CitationStatus.PENDING:
        from citations.tasks import verify_citation
        from lib.worker.enqueue import send_on_commit

        send_on_commit(verify_citation, str(citation.pk), "initial")


class _ClaimLost(Exception):
    """Rolls back a cell's write when its claim was taken over."""


def _verify_leftovers(review: Review) -> None:
    """Citations left pending (a judge was down): verify them now, once."""
    ids = list(
        MessageCitation.objects.filter(
            execution_context_type=CONTEXT_TYPE,
            execution_context_id=str(review.pk),
            verification_status=CitationStatus.PENDING,
        ).values_list("pk", flat=True)
    )
    for citation_id in ids:
        try:
            citation_verify(citation_id=citation_id)
        except LLMError:
            logger.warning(
                "citation %s stays pending: the judge is unavailable", citation_id
            )


# ------------------------------------------------------------------ aggregate


def review_aggregate(review: Review, *, token: uuid.UUID | None = None) -> None:
    """Write results, tokens, cost and the final status (completed).

    With ``token``, only while that delivery still owns the running review.
    """
    from tabular.selectors import review_results

    cells = list(
        Cell.objects.filter(review=review).only(
            "prompt_tokens", "completion_tokens", "cost_usd", "model_name"
        )
    )
    prompt = sum(c.prompt_tokens for c in cells)
    output = sum(c.completion_tokens for c in cells)
    cost = sum((c.cost_usd for c in cells), Decimal("0"))
    models = sorted({c.model_name for c in cells if c.model_name})
    qs = Review.objects.filter(pk=review.pk)
    if token is not None:
        qs = qs.filter(run_token=token, status=Review.Status.RUNNING)
    qs.update(
        status=Review.Status.COMPLETED,
        results=review_results(review),
        prompt_tokens=prompt,
        completion_tokens=output,
        cost_actual_usd=cost,
        model_name=", ".join(models)[:200],
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
