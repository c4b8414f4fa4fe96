"""Retrieval quality on CUAD (issue 23): does the search find the expert's clause?

    .venv/bin/python bench/retrieval_eval.py [--corpus ../shared/corpus] [--quick]

The 20 CUAD contract PDFs are ingested through the product's own pipeline
(upload -> extraction -> chunking -> embeddings), as a user would upload them;
the ingested database is kept under var/bench/retrieval-<key>/ and reused while
the PDFs, the chunk settings, the ingestion code and the embedder are unchanged
(--fresh ingests again). The expert's clauses (gold_spans.jsonl) are offsets
into CUAD's plain-text files; they are carried over to the text extracted from
the PDF by aligning the two texts (unique 24-letter runs of both, in order).

The questions are bench/retrieval_questions.json, committed before tuning:
41 categories x at least 3 wordings, split into "tune" and "report" contracts.
A question counts where its contract has a gold span for its category;
"holds the expert's clause" means one returned chunk covers at least half of a
gold span (at any of its all_starts).

One function per part; each returns a JSON-able dict:

* ``part_scoped``: top-4 within the contract, for each search mode
  (fts / dense / hybrid) side by side, on the tune and report splits; once
  with the offline embedder (the product's default), once with the scripted
  OpenAI-compatible server's /v1/embeddings (``part_scoped_scripted``:
  bag-of-words vectors over real HTTP, which proves the server path end to
  end; its figures say nothing about a real embedding model).
* the answer parts (bench/_answers.py): the chat's own search inside a
  picked contract; a question naming the contract among all 20; whole
  offline chat turns (citations from the named contract, answers holding the
  expert's clause, "not found" on clauses the contract lacks and on those it
  has); relevance marks against the expert's clauses.

--quick runs every part on a tiny built-in text in a few seconds (no corpus),
only proving the script runs. Results: bench/results/retrieval.json.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Imported before a boot points DOCUIQ_VAR_DIR elsewhere: it reads where
# the tests keep their migrated database.
import _django  # noqa: E402

QUESTIONS = ROOT / "bench" / "retrieval_questions.json"
# `make bench-quick` points BENCH_RESULTS elsewhere, so a quick run never
# overwrites a full run's figures.
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "bench" / "results")
MODES = ("fts", "dense", "hybrid")
TOP_K = 4
# The code whose change makes a cached ingestion stale.
INGEST_CODE = [
    "ingest/chunking.py",
    "ingest/normalize.py",
    "ingest/services.py",
    "ingest/extractors/pdf.py",
    "ingest/extractors/pdf_layout.py",
    "ingest/embedding.py",
    "llm/embeddings.py",
]


# ------------------------------------------------------------------ setting up


def boot(var_dir: Path, *, offline: bool = True) -> None:
    """Django on the SQLite database under `var_dir`, the default embedder;
    the offline responder unless `offline` is False (then the model the
    environment configures, if any)."""
    os.environ["DOCUIQ_VAR_DIR"] = str(var_dir)
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    if offline:
        os.environ["LLM_BASE_URL"] = ""
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "docuiq.settings"
    import django

    django.setup()
    _django.migrate()


def cache_key(pdfs: list[Path]) -> str:
    digest = hashlib.sha256()
    for name in INGEST_CODE:
        path = ROOT / name
        if path.exists():
            digest.update(path.read_bytes())
    for pdf in pdfs:
        digest.update(f"{pdf.name}:{pdf.stat().st_size}".encode())
    for setting in ("CHUNK_TARGET_CHARS", "CHUNK_OVERLAP_CHARS", "EMBEDDINGS"):
        digest.update(f"{setting}={os.environ.get(setting, '')}".encode())
    return digest.hexdigest()[:12]


# ------------------------------------------------------------- the gold spans


def _letters(text: str) -> tuple[str, list[int]]:
    """Lower-case letters and digits of `text`, and where each came from:
    what survives PDF extraction whatever happens to spaces and line ends."""
    kept, where = [], []
    for i, c in enumerate(text):
        if c.isalnum():
            kept.append(c.lower())
            where.append(i)
    return "".join(kept), where


def _anchors(a: str, b: str, size: int = 24) -> list[tuple[int, int]]:
    """(position in a, position in b) of runs of `size` letters unique in both,
    the longest chain that keeps their order."""

    def unique(s: str) -> dict[str, int]:
        seen: dict[str, int] = {}
        twice: set[str] = set()
        for i in range(0, len(s) - size + 1):
            run = s[i : i + size]
            if run in seen:
                twice.add(run)
            else:
                seen[run] = i
        return {run: i for run, i in seen.items() if run not in twice}

    in_a, in_b = unique(a), unique(b)
    pairs = sorted((i, in_b[run]) for run, i in in_a.items() if run in in_b)
    # Longest increasing subsequence on the b positions (patience sorting).
    tails: list[int] = []
    tail_at: list[int] = []
    previous = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k] = j
            tail_at[k] = n
        previous[n] = tail_at[k - 1] if k else -1
    chain, n = [], tail_at[-1] if tail_at else -1
    while n != -1:
        chain.append(pairs[n])
        n = previous[n]
    return chain[::-1]


class Alignment:
    """Carries offsets in CUAD's text file over to the extracted PDF text."""

    def __init__(self, original: str, extracted: str) -> None:
        self.a, self.a_at = _letters(original)
        self.b, self.b_at = _letters(extracted)
        chain = _anchors(self.a, self.b)
        self.a_keys = [i for i, _ in chain]
        self.b_keys = [j for _, j in chain]

    def _letter(self, i: int) -> int | None:
        k = bisect.bisect_right(self.a_keys, i) - 1
        if k < 0:
            return None
        j = self.b_keys[k] + (i - self.a_keys[k])
        if k + 1 < len(self.b_keys) and j >= self.b_keys[k + 1]:
            return None  # a gap: text the PDF does not have here
        return j if j < len(self.b) else None

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """[start, end) of the original as an extracted span, if it aligns."""
        first = bisect.bisect_left(self.a_at, start)
        last = bisect.bisect_left(self.a_at, end) - 1
        if last < first:
            return None
        lo, hi = self._letter(first), self._letter(last)
        if lo is None or hi is None or hi < lo:
            return None
        # Check the letters agree (the texts may differ inside the span).
        same = sum(
            1
            for i in range(first, last + 1)
            if (j := self._letter(i)) is not None and self.b[j] == self.a[i]
        )
        if same < 0.8 * (last - first + 1):
            return None
        return self.b_at[lo], self.b_at[hi] + 1


def covers_half(spans: list[tuple[int, int]], chunk: tuple[int, int]) -> bool:
    """One chunk covers at least half of one gold span."""
    a, b = chunk
    return any(2 * (min(e, b) - max(s, a)) >= e - s for s, e in spans)


# ------------------------------------------------------------------ the corpus


@dataclass
class Contract:
    """An ingested document of a corpus and its experts' spans, by category
    (CUAD) or hypothesis (ContractNLI), as offsets into the product's text."""

    title: str
    split: str
    document: object
    gold: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    unaligned: int = 0
    # CUAD: the expert's normalized answer and span texts, by category;
    # ContractNLI: the expert's choice (Entailment / Contradiction /
    # NotMentioned), by hypothesis.
    answers: dict[str, str] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


def load_questions() -> dict:
    return json.loads(QUESTIONS.read_text(encoding="utf-8"))


def ingest_corpus(
    tenant,
    corpus: Path,
    questions: dict,
    *,
    limit: int | None = None,
    splits: tuple[str, ...] | None = None,
) -> list[Contract]:
    """Upload each CUAD PDF once (cached database) and align its gold spans;
    `splits`: only the contracts of those splits, `limit`: the first N."""
    from accounts.scoping import tenant_scope
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    split = {t: s for s, titles in questions["split"].items() for t in titles}
    lines = (corpus / "cuad" / "gold_spans.jsonl").read_text(encoding="utf-8")
    out = []
    for line in lines.splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if splits is not None and split.get(record["title"], "") not in splits:
            continue
        if limit is not None and len(out) >= limit:
            break
        pdf = corpus / "cuad" / record["pdf"]
        with tenant_scope(tenant):
            document = (
                Document.objects.filter(title__in=[pdf.name, record["title"]])
                .select_related("current_revision")
                .first()
            )
            if document is None:
                with pdf.open("rb") as stream:
                    document = document_upload(
                        tenant=tenant, upload=Upload(filename=pdf.name, stream=stream)
                    )
                document = Document.objects.select_related("current_revision").get(
                    pk=document.pk
                )
        if document.status != Document.Status.READY:
            print(f"  skipped {pdf.name}: {document.error}", file=sys.stderr)
            continue
        original = (corpus / "cuad" / record["txt"]).read_text(encoding="utf-8")
        alignment = Alignment(original, document.current_revision.normalized_content)
        contract = Contract(
            title=record["title"],
            split=split.get(record["title"], ""),
            document=document,
            answers={
                c["category"]: c.get("normalized_answer") or ""
                for c in record["categories"]
            },
            texts={
                c["category"]: [sp["text"] for sp in c["spans"]]
                for c in record["categories"]
            },
        )
        for category in record["categories"]:
            for span in category["spans"]:
                for start in span.get("all_starts") or [span["answer_start"]]:
                    placed = alignment.span(start, start + len(span["text"]))
                    if placed is None:
                        contract.unaligned += 1
                        continue
                    contract.gold.setdefault(category["category"], []).append(placed)
        out.append(contract)
    return out


# ------------------------------------------------------------------ the parts


def _chunk_regions(hits) -> list[tuple[int, int]]:
    return [(h.chunk.start_offset, h.chunk.end_offset) for h in hits]


def part_scoped(tenant, contracts: list[Contract], questions: dict) -> dict:
    """Top-4 within the contract: share of (contract, category, wording)
    questions whose top 4 hold the expert's clause, per mode and split."""
    from accounts.scoping import tenant_scope
    from ingest.search import search_chunks

    counts: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    per_category: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    times: dict[str, list[float]] = defaultdict(list)
    with tenant_scope(tenant):
        for contract in contracts:
            for category, spec in questions["categories"].items():
                spans = contract.gold.get(category)
                if not spans:
                    continue
                for wording in spec["questions"]:
                    for mode in MODES:
                        t0 = time.perf_counter()
                        hits = search_chunks(
                            tenant,
                            wording,
                            document=contract.document,
                            k=TOP_K,
                            mode=mode,
                        )
                        times[mode].append((time.perf_counter() - t0) * 1000)
                        hit = any(covers_half(spans, r) for r in _chunk_regions(hits))
                        cell = counts[contract.split or "all"][mode]
                        cell[0] += hit
                        cell[1] += 1
                        if contract.split == "tune":
                            row = per_category[category][mode]
                            row[0] += hit
                            row[1] += 1
    result: dict = {"hit_at_4": {}, "questions": {}}
    for split, modes in counts.items():
        result["hit_at_4"][split] = {m: round(h / n, 3) for m, (h, n) in modes.items()}
        result["questions"][split] = next(iter(modes.values()))[1]
    result["tune_per_category"] = {
        c: {m: round(h / n, 2) for m, (h, n) in modes.items()}
        for c, modes in sorted(per_category.items())
    }
    result["median_ms"] = {
        m: round(sorted(v)[len(v) // 2], 2) for m, v in times.items() if v
    }
    _print_scoped(result)
    return result


def part_scoped_scripted(tenant, contracts: list[Contract], questions: dict) -> dict:
    """part_scoped with the scripted server as the embedder: its vectors are
    stored beside the offline ones (another model name, never mixed)."""
    from django.test import override_settings

    from accounts.scoping import tenant_scope
    from docuiq.testing.llm_server import ScriptedLLMServer
    from ingest.embedding import (
        CHUNK_TEXT_FIELDS,
        configured_embedder,
        embed_chunks,
        missing_vectors,
        searchable_chunks,
    )

    with ScriptedLLMServer() as server:
        config = server.embeddings_config()
        with override_settings(
            EMBEDDINGS="server",
            EMBEDDINGS_BASE_URL=config.base_url,
            EMBEDDINGS_MODEL=config.model,
            EMBEDDINGS_DIM=config.dim,
        ):
            embedder = configured_embedder()
            with tenant_scope(tenant):
                rows = missing_vectors(searchable_chunks(), embedder.name)
                embed_chunks(
                    list(rows.values_list(*CHUNK_TEXT_FIELDS, named=True)), embedder
                )
            print(f"(embeddings from the scripted server: {embedder.name})")
            return part_scoped(tenant, contracts, questions)


def _print_scoped(result: dict) -> None:
    print(f"scoped: top-{TOP_K} within the contract holds the expert's clause")
    print(f"  {'split':<8}{'questions':>10}" + "".join(f"{m:>9}" for m in MODES))
    for split, shares in result["hit_at_4"].items():
        print(
            f"  {split:<8}{result['questions'][split]:>10}"
            + "".join(f"{shares.get(m, 0):>9.1%}" for m in MODES)
        )


# ------------------------------------------------------------------ quick mode

_QUICK_TEXT = (
    "SUPPLY AGREEMENT. This Supply Agreement is made between Acme Corp. and "
    "Widget Ltd.\n\n"
    "1. Term. This Agreement begins on the Effective Date and continues for two "
    "years.\n\n"
    "2. Governing law. This Agreement is governed by the laws of the State of "
    "New York.\n\n"
    "3. Termination. Either party may terminate this Agreement for convenience on "
    "ninety (90) days' written notice.\n\n"
    "4. Assignment. Neither party may assign this Agreement without the other "
    "party's prior written consent."
)


def run_quick() -> dict:
    from accounts.services import tenant_create
    from docuiq.testing.factories import make_document
    from ingest.embedding import embed_revision

    tenant = tenant_create(slug="quick-retrieval")
    document = make_document(tenant, _QUICK_TEXT, title="Quick", target_chars=150)
    embed_revision(document.current_revision)
    start = _QUICK_TEXT.index("2. Governing")
    contract = Contract(
        title="Quick",
        split="quick",
        document=document,
        gold={"Governing Law": [(start, start + 90)]},
    )
    questions = {
        "categories": {
            "Governing Law": {
                "questions": ["Which state's law applies?"],
                "named": ["Which law governs the {contract}?"],
            },
            "Non-Compete": {
                "questions": ["Is there a non-compete?"],
                "named": ["Is there a non-compete in the {contract}?"],
            },
        },
        "contracts": {"Quick": {"names": ["Quick supply agreement"]}},
    }
    return {
        "scoped": part_scoped(tenant, [contract], questions),
        "scoped_scripted_server": part_scoped_scripted(tenant, [contract], questions),
        **_answer_parts(tenant, [contract], questions),
    }


def _answer_parts(tenant, contracts: list[Contract], questions: dict) -> dict:
    """The chat parts (bench/_answers.py), in a transaction rolled back so the
    cached corpus database keeps no chat."""
    import _answers
    from django.db import transaction

    with transaction.atomic():
        result = _answers.run_parts(tenant, contracts, questions)
        transaction.set_rollback(True)
    return result


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", default=os.environ.get("DOCUIQ_CORPUS", "../shared/corpus")
    )
    parser.add_argument("--quick", action="store_true", help="tiny built-in text")
    parser.add_argument("--fresh", action="store_true", help="ingest again")
    parser.add_argument("--out", default=str(RESULTS / "retrieval.json"))
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.quick:
        with tempfile.TemporaryDirectory(prefix="docuiq-retrieval-") as var_dir:
            boot(Path(var_dir))
            result = run_quick()
        return _write(args.out, {"quick": True, **result}, started)

    corpus = Path(args.corpus or "../shared/corpus").resolve()
    pdfs = sorted((corpus / "cuad" / "contracts_pdf").glob("*"))
    if not pdfs:
        # `make bench` runs every script: without the shared corpus, skip.
        print(f"skipped: no CUAD PDFs under {corpus} (pass --corpus)", file=sys.stderr)
        return 0
    var_dir = ROOT / "var" / "bench" / f"retrieval-{cache_key(pdfs)}"
    if args.fresh and var_dir.exists():
        import shutil

        shutil.rmtree(var_dir)
    var_dir.mkdir(parents=True, exist_ok=True)
    boot(var_dir)
    from accounts.models import Tenant
    from accounts.services import tenant_create

    tenant = Tenant.objects.filter(slug="cuad").first() or tenant_create(
        slug="cuad", name="CUAD"
    )
    questions = load_questions()
    t0 = time.monotonic()
    contracts = ingest_corpus(tenant, corpus, questions)
    unaligned = sum(c.unaligned for c in contracts)
    print(
        f"{len(contracts)} contracts ready in {time.monotonic() - t0:.1f} s "
        f"({var_dir.name}); {unaligned} gold span occurrences did not align"
    )
    result = {
        "corpus": "CUAD v1, 20 contracts (PDF, ingested by the product)",
        "contracts": {s: len(t) for s, t in questions["split"].items()},
        "unaligned_gold_occurrences": unaligned,
        "scoped": part_scoped(tenant, contracts, questions),
        "scoped_scripted_server": part_scoped_scripted(tenant, contracts, questions),
        **_answer_parts(tenant, contracts, questions),
    }
    return _write(args.out, result, started)


def _write(out: str, result: dict, started: float) -> int:
    result["seconds"] = round(time.monotonic() - started, 1)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
