"""Tabular cells on CUAD: values, "not found", quotes and confidence (issues 6, 25).

    .venv/bin/python bench/tabular_eval.py --corpus ../shared/corpus [--offline-only]
        [--split tune|report|both] [--dump cells.jsonl] [--quick]

The 20 CUAD development contracts (plain text, ingested through the real
pipeline) are the rows; the 41 CUAD categories are the columns, written as a
lawyer would (name = the category, question = the first wording of
bench/retrieval_questions.json, committed before any tuning; type = its
value_kind: jurisdiction, date, duration, yes/no, party, text). Contracts are
split as that file says: the reader and the confidence rules were tuned on
'tune'; 'report' is held back. Each split is one review, run by the real
executor: offline (the built-in reader), and against the scripted model
server (docuiq.testing.llm_server, whose "model" quotes the
first sentence it is shown: it measures the plumbing, not a model).

Per (contract, category), against the expert's labels (gold_spans.jsonl):

* value right, per type with n: jurisdiction (Governing Law: the place, "New
  York"), dates (Agreement, Effective, Expiration Date: the day, from the
  expert's m/d/yy), durations (Renewal Term, Notice Period To Terminate
  Renewal, Warranty Duration: the period), yes/no (the presence categories:
  Yes when the expert highlighted a clause). A pair counts where the expert
  gave a value (a yes/no pair always); "not found" on it is wrong.
  Target offline >= 70% overall.
* not found: on pairs the expert left empty, the share of "not found" cells
  (target >= 80%); on pairs the expert answered, the share of "not found"
  (target <= 10%).
* quote_in: an answered cell's verified quote lies inside an expert span;
  quote_ov: overlaps one.
* confidence bands: accuracy of answered cells with a value label per band;
  "high" must be right >= 90% of the time while covering >= 30% of them.
* retrieval (as before): fts@4 (full-text top 4 with the question), cell@4
  (tabular.retrieval's top 4), cited (the cell's cited chunk) hold >= half of
  an expert span.

Results go to bench/results/tabular_eval.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Imported before a boot points DOCUIQ_VAR_DIR elsewhere: it reads where
# the tests keep their migrated database.
import _django  # noqa: E402

# `make bench-quick` points BENCH_RESULTS elsewhere (bench/_common.py).
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "bench" / "results")


def _boot(var_dir: str) -> None:
    os.environ["DOCUIQ_VAR_DIR"] = var_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["LLM_BASE_URL"] = ""
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "docuiq.settings"
    import django

    django.setup()
    _django.migrate()


QUICK_CONTRACT = (
    "SUPPLY AGREEMENT\n\n"
    "1. Governing Law. This Agreement shall be governed by the laws of the State "
    "of New York.\n\n"
    "2. Term. This Agreement begins on the Effective Date and continues for three "
    "years unless terminated earlier.\n"
)


def write_cuad_corpus(base: Path, text: str, categories: list[tuple]) -> Path:
    """One built-in contract in CUAD's layout under `base`: `categories` are
    (name, description, answer format, the clause quoted, normalized answer)."""
    cuad = base / "cuad"
    (cuad / "contracts_txt").mkdir(parents=True)
    (cuad / "contracts_txt" / "quick.txt").write_text(text)
    (cuad / "category_descriptions.csv").write_text(
        "".join(
            f"Category: {name},Description: {description},"
            f"Answer Format: {answer_format},Group: {i}\n"
            for i, (name, description, answer_format, *_rest) in enumerate(categories)
        )
    )
    spans = []
    for name, _description, _format, clause, answer in categories:
        if not clause:
            continue
        start = text.index(clause)
        spans.append(
            {
                "category": name,
                "normalized_answer": answer,
                "spans": [
                    {"text": clause, "answer_start": start, "all_starts": [start]}
                ],
            }
        )
    record = {
        "title": "quick",
        "txt": "contracts_txt/quick.txt",
        "pdf": "contracts_txt/quick.txt",
        "categories": spans,
    }
    (cuad / "gold_spans.jsonl").write_text(json.dumps(record) + "\n")
    return base


def _quick_corpus(base: Path) -> Path:
    """A corpus of one built-in contract and two categories, in CUAD's layout."""
    return write_cuad_corpus(
        base,
        QUICK_CONTRACT,
        [
            ("Governing Law", "Which state's law governs?", "Location",
             "governed by the laws of the State of New York", "New York"),
            ("Expiration Date", "When does the contract end?", "Date",
             "continues for three years", ""),
        ],
    )  # fmt: skip


QUESTIONS = ROOT / "bench" / "retrieval_questions.json"
# value_kind in retrieval_questions.json -> column type.
COLUMN_TYPES = {
    "jurisdiction": "jurisdiction",
    "date": "date",
    "duration": "duration",
    "yes_no": "yes_no",
    "party": "party",
    "text": "text",
}
# Categories whose expert label is a value we can compare, by type.
VALUE_CATEGORIES = {
    "Governing Law": "jurisdiction",
    "Agreement Date": "date",
    "Effective Date": "date",
    "Expiration Date": "date",
    "Renewal Term": "duration",
    "Notice Period To Terminate Renewal": "duration",
    "Warranty Duration": "duration",
}
BANDS = ("high", "medium", "low")

# Money and number columns have no CUAD label: a small list written by hand
# before the reader was run on it (issue 25), in the CUAD contracts' style.
# (column name, question, type, passage, the value a lawyer would write)
HAND_LABELLED = [
    ("Liability cap", "What is the cap on liability?", "money",
     "In no event shall either party's aggregate liability under this Agreement "
     "exceed Five Hundred Thousand Dollars ($500,000).", "USD 500,000"),
    ("Annual fee", "What is the annual license fee?", "money",
     "Licensee shall pay Licensor an annual license fee of US$ 1.5 million, "
     "payable in advance on each anniversary of the Effective Date.", "USD 1,500,000"),
    ("Minimum purchase", "What is the minimum purchase commitment?", "money",
     "During each Contract Year, Distributor shall purchase Products having an "
     "aggregate invoice value of not less than EUR 250,000.", "EUR 250,000"),
    ("Insurance", "How much liability insurance must be maintained?", "money",
     "Supplier shall maintain commercial general liability insurance with limits "
     "of not less than $2,000,000 per occurrence and $5,000,000 in the aggregate.",
     "USD 2,000,000"),
    ("Termination fee", "What fee is payable on early termination?", "money",
     "If Customer terminates this Agreement for convenience, Customer shall pay a "
     "termination fee equal to GBP 75,000 within thirty (30) days.", "GBP 75,000"),
    ("Royalty rate", "What royalty rate applies to net sales?", "number",
     "Licensee shall pay Licensor a royalty of five percent (5%) of Net Sales of "
     "all Licensed Products sold in the Territory.", "5%"),
    ("Revenue share", "What share of the revenue does the partner receive?", "number",
     "Company shall pay Partner twenty-five percent (25%) of all Net Revenue "
     "received from Referred Customers.", "25%"),
    ("Minimum units", "How many units must be ordered each quarter?", "number",
     "Distributor shall order a minimum of 1,000 units of the Products in each "
     "calendar quarter during the Term.", "1,000"),
    ("Seats", "How many users may use the software?", "number",
     "The license permits use of the Software by up to fifty (50) named users "
     "employed by Licensee.", "50"),
    ("Late interest", "What interest rate applies to late payments?", "number",
     "Any amount not paid when due shall bear interest at the rate of one and one "
     "half percent (1.5%) per month.", "1.5%"),
    ("Price increase cap", "By how much may prices increase each year?", "number",
     "Supplier may increase the prices once per Contract Year by no more than "
     "three percent (3%).", "3%"),
    ("Cure period", "What is the cure period for a breach?", "duration",
     "Either party may terminate this Agreement if the other party fails to cure "
     "a material breach within thirty (30) days after written notice.", "30 days"),
]  # fmt: skip
DISTRACTOR = (
    "This Agreement is governed by the laws of the State of New York. Notices "
    "shall be sent to the addresses set out on the signature page."
)


def _type_for(answer_format: str) -> str:
    fmt = answer_format.lower()
    if "yes/no" in fmt:
        return "yes_no"
    if "date" in fmt:
        return "date"
    return "text"


def load_categories(corpus: Path) -> list[dict]:
    rows = []
    path = corpus / "cuad" / "category_descriptions.csv"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for row in csv.reader(fh):
            if not row or not row[0].startswith("Category:"):
                continue
            name = row[0].split(":", 1)[1].strip()
            description = (
                row[1].split(":", 1)[1].strip() if ":" in row[1] else row[1].strip()
            )
            answer = row[2].split(":", 1)[1].strip() if ":" in row[2] else ""
            rows.append(
                {"name": name, "question": description, "type": _type_for(answer)}
            )
    return rows


def load_questions(categories: list[dict]) -> dict[str, dict]:
    """Category -> {"question", "type"} from retrieval_questions.json (the
    lawyer's first wording), falling back to CUAD's description."""
    data = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    out = {}
    for category in categories:
        entry = data["categories"].get(category["name"])
        if entry is None:  # CUAD spells some names in other case
            entry = next(
                (
                    v
                    for k, v in data["categories"].items()
                    if k.lower() == category["name"].lower()
                ),
                None,
            )
        if entry is None:
            out[category["name"]] = category
            continue
        out[category["name"]] = {
            "name": category["name"],
            "question": entry["questions"][0],
            "type": COLUMN_TYPES.get(entry.get("value_kind", "text"), "text"),
        }
    return out


def load_split() -> dict[str, str]:
    data = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    return {t: split for split, titles in data["split"].items() for t in titles}


def load_contracts(corpus: Path, limit: int | None) -> list[dict]:
    lines = (
        (corpus / "cuad" / "gold_spans.jsonl").read_text(encoding="utf-8").splitlines()
    )
    contracts = [json.loads(line) for line in lines if line.strip()]
    return contracts[:limit] if limit else contracts


def _offset_map(original: str):
    """original offset -> normalized offset (normalization only drops characters)."""
    from ingest.normalize import normalize_page_with_map

    normalized, index = normalize_page_with_map(original)
    if index and index[0] == -1:
        return normalized, None
    return normalized, index


def ingest(tenant, contracts: list[dict], corpus: Path) -> dict[str, tuple]:
    """Ingest each contract's .txt; returns title -> (document, gold spans by
    category, the expert's normalized answer by category)."""
    from accounts.scoping import tenant_scope
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    out = {}
    for contract in contracts:
        path = corpus / "cuad" / contract["txt"]
        original = path.read_text(encoding="utf-8")
        with path.open("rb") as stream:
            document = document_upload(
                tenant=tenant, upload=Upload(filename=path.name, stream=stream)
            )
        with tenant_scope(tenant):
            document = Document.objects.select_related("current_revision").get(
                pk=document.pk
            )
        if document.status != Document.Status.READY:
            print(
                f"  skipped {path.name}: {document.status} {document.error}",
                file=sys.stderr,
            )
            continue
        text = document.current_revision.normalized_content
        _, index = _offset_map(original)
        spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
        answers = {
            c["category"].lower(): c.get("normalized_answer") or ""
            for c in contract["categories"]
        }
        texts = {
            c["category"].lower(): [sp["text"] for sp in c["spans"]]
            for c in contract["categories"]
        }
        for category in contract["categories"]:
            for span in category["spans"]:
                start = span["answer_start"]
                end = start + len(span["text"])
                if index is not None:
                    start, end = bisect_left(index, start), bisect_left(index, end)
                if 0 <= start < end <= len(text):
                    spans[category["category"].lower()].append((start, end))
        out[contract["title"]] = (document, dict(spans), answers, texts)
    return out


def half_inside(spans: list[tuple[int, int]], regions: list[tuple[int, int]]) -> bool:
    """At least half of some gold span lies in the union of `regions`."""
    for s, e in spans:
        covered = 0
        for a, b in sorted(regions):
            lo, hi = max(s, a), min(e, b)
            if hi > lo:
                covered += hi - lo
        # Overlapping chunks may count a character twice: cap at the span.
        if min(covered, e - s) * 2 >= e - s:
            return True
    return False


def quote_inside(
    spans: list[tuple[int, int]], start: int, end: int, slack: int = 2
) -> bool:
    return any(s - slack <= start and end <= e + slack for s, e in spans)


def overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(min(e, end) > max(s, start) for s, e in spans)


# ------------------------------------------------------------------ gold


def gold_value(category: str, answer: str, span_texts: list[str]):
    """The expert's value for a value category, as a set of acceptable typed
    keys, or None when the expert gave none we can compare ("[]/[]/2019",
    "perpetual", a clause without a period)."""
    import datetime as dt
    import re

    from citations import values

    kind = VALUE_CATEGORIES.get(category)
    if kind == "jurisdiction":
        names = {j.name for j in values.find_jurisdictions(answer)}
        if {"England", "Wales"} & names:
            names.add("England and Wales")
        return names or None
    if kind == "date":
        m = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{2,4})\s*", answer)
        if not m:
            return None
        month, day, year = (int(g) for g in m.groups())
        year += 2000 if year < 30 else 1900 if year < 100 else 0
        try:
            return {dt.date(year, month, day).isoformat()}
        except ValueError:
            return None
    if kind == "duration":
        found = values.find_durations(answer)
        if not found:  # Warranty Duration's answer is "Yes": read its clause
            found = [d for text in span_texts for d in values.find_durations(text)]
        return {_days(d.amount, d.unit) for d in found} or None
    return None


def _days(amount: int, unit: str) -> int:
    return round(
        amount
        * {"day": 1, "business_day": 1, "week": 7, "month": 30.4, "year": 365}[unit]
    )


def cell_value_key(cell):
    """The cell's value as a gold key (see gold_value), or None."""
    typed = cell.typed_value or {}
    kind = typed.get("kind")
    if kind == "jurisdiction":
        return typed["name"]
    if kind == "date":
        return typed["value"]
    if kind == "duration":
        return _days(int(typed["amount"]), typed["unit"])
    if kind == "yes_no":
        return bool(typed["value"])
    return None


# ------------------------------------------------------------------ run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", default=os.environ.get("DOCUIQ_CORPUS", "../shared/corpus")
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="first N contracts only"
    )
    parser.add_argument(
        "--split",
        choices=("tune", "report", "both"),
        default="both",
        help="which contracts of retrieval_questions.json's split to run",
    )
    parser.add_argument(
        "--offline-only",
        action="store_true",
        help="skip the run through the scripted model server",
    )
    parser.add_argument(
        "--dump", default="", help="write every cell's facts (JSON lines)"
    )
    parser.add_argument("--out", default=str(RESULTS / "tabular_eval.json"))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a built-in two-clause contract instead of the corpus: runs only",
    )
    args = parser.parse_args(argv)
    if args.quick:
        with tempfile.TemporaryDirectory(prefix="docuiq-tabular-eval-quick-") as tmp:
            args.corpus = str(_quick_corpus(Path(tmp)))
            with tempfile.TemporaryDirectory(prefix="docuiq-tabular-eval-") as var:
                _boot(var)
                return _evaluate(args, Path(args.corpus))
    corpus = Path(args.corpus).resolve()
    if not (corpus / "cuad" / "gold_spans.jsonl").exists():
        # `make bench` runs every script: without the shared corpus, skip.
        print(
            f"skipped: no CUAD corpus under {corpus} (pass --corpus)", file=sys.stderr
        )
        return 0

    with tempfile.TemporaryDirectory(prefix="docuiq-tabular-eval-") as var_dir:
        _boot(var_dir)
        return _evaluate(args, corpus)


def _evaluate(args: argparse.Namespace, corpus: Path) -> int:
    from accounts.services import tenant_create

    started = time.monotonic()
    tenant = tenant_create(slug="cuad-eval", name="CUAD evaluation")
    columns = list(load_questions(load_categories(corpus)).values())
    contracts = load_contracts(corpus, args.limit)
    split_of = load_split()
    docs = ingest(tenant, contracts, corpus)
    print(
        f"ingested {len(docs)} contracts in {time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    wanted = ("tune", "report") if args.split == "both" else (args.split,)
    groups: dict[str, dict] = {}
    for title, entry in docs.items():
        split = split_of.get(title, "quick" if args.quick else "")
        if args.quick or split in wanted:
            groups.setdefault(split, {})[title] = entry
    result: dict = {
        "benchmark": "tabular_eval",
        "quick": bool(args.quick),
        "columns": [{k: c[k] for k in ("name", "question", "type")} for c in columns],
        "splits": {},
        "targets": {
            "value_right_offline": 0.70,
            "not_found_on_empty": 0.80,
            "not_found_on_answered_max": 0.10,
            "high_band_accuracy": 0.90,
            "high_band_coverage": 0.30,
        },
    }
    result["hand_labelled"] = _hand_labelled()
    h = result["hand_labelled"]
    print(
        f"hand-labelled money/number (no target): {h['right']}/{h['n']} "
        f"({', '.join(w['column'] + ': ' + repr(w['got']) for w in h['wrong']) or 'all right'})"
    )
    modes = ["offline"] + ([] if args.offline_only else ["model"])
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
    try:
        for split, group in groups.items():
            result["splits"][split] = {}
            for mode in modes:
                records = _run_split(tenant, columns, group, split, mode)
                if dump is not None:
                    for record in records:
                        dump.write(json.dumps(record, default=str) + "\n")
                metrics = _metrics(records)
                result["splits"][split][mode] = metrics
                _print(split, mode, metrics)
    finally:
        if dump is not None:
            dump.close()
    result["seconds"] = round(time.monotonic() - started, 1)
    result["definitions"] = {
        "value_right": "the cell's typed value is the expert's (per type; pairs with an expert value, every yes/no pair)",
        "not_found_on_empty": "share of 'not found' cells on pairs the expert left empty",
        "not_found_on_answered": "share of 'not found' cells on pairs the expert answered",
        "quote_in": "an answered cell's verified quote lies inside an expert span",
        "quote_ov": "an answered cell's verified quote overlaps an expert span",
        "bands": "accuracy of answered cells with a value label, per calibrated confidence band; coverage = share of those cells in the band",
        "fts@4": "top-4 full-text search with the question alone holds >= half of a gold span",
        "cell@4": "top-4 of tabular.retrieval holds >= half of a gold span",
        "cited": "the chunk(s) the cell cites hold >= half of a gold span",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def _run_split(tenant, columns, group, split, mode) -> list[dict]:
    """One review over the split's contracts x all columns; a record per cell."""
    from accounts.scoping import tenant_scope
    from citations.models import MessageCitation
    from ingest.models import DocumentChunk
    from ingest.search import search_chunks
    from tabular import services
    from tabular.executor import review_run
    from tabular.models import Cell

    with model_row(mode), tenant_scope(tenant):
        documents = [doc for doc, *_ in group.values()]
        review = services.review_create(
            tenant=tenant,
            name=f"CUAD {split} {mode}",
            document_ids=[d.pk for d in documents],
            columns=[
                services.ColumnSpec(
                    name=c["name"], question=c["question"], type=c["type"]
                )
                for c in columns
            ],
        )
        t0 = time.monotonic()
        review_run(review_id=review.pk)
        print(
            f"{split}/{mode}: {len(documents)} x {len(columns)} cells in "
            f"{time.monotonic() - t0:.1f} s",
            file=sys.stderr,
        )
        by_doc = {
            str(doc.pk): (title, spans, answers, texts)
            for title, (doc, spans, answers, texts) in group.items()
        }
        cells = list(Cell.objects.filter(review=review).select_related("row", "column"))
        citations = {
            c.pk: c
            for c in MessageCitation.objects.filter(
                pk__in=[cell.citation_id for cell in cells if cell.citation_id]
            )
        }
        chunk_spans = {
            str(uid): (a, b)
            for uid, a, b in DocumentChunk.objects.filter(
                document_id__in=[d.pk for d in documents]
            ).values_list("uid", "start_offset", "end_offset")
        }
        records = []
        for cell in cells:
            title, spans_by, answers, texts = by_doc[str(cell.row.document_uid)]
            category = cell.column.name
            spans = spans_by.get(category.lower(), [])
            answered_by_expert = bool(spans)
            citation = citations.get(cell.citation_id)
            record = {
                "split": split,
                "mode": mode,
                "contract": title,
                "category": category,
                "type": cell.column.type,
                "expert_answered": answered_by_expert,
                "expert_answer": answers.get(category.lower(), ""),
                "status": cell.status,
                "not_found": cell.is_not_found,
                "value": cell.value,
                "typed": cell.typed_value,
                "support": cell.support,
                "confidence": cell.confidence,
                "rule": cell.confidence_rule,
                "verified": bool(citation and citation.verified),
                "method": citation.verification_method if citation else "",
                "relevance": citation.relevance if citation else "",
                "relevance_score": citation.relevance_score if citation else None,
                "best_score": max(
                    (
                        p["score"]
                        for p in (cell.searched or {}).get("passages", [])
                        if p["score"] is not None
                    ),
                    default=None,
                ),
                "facts": (cell.searched or {}).get("facts", {}),
                "labels": [
                    p["label"] for p in (cell.searched or {}).get("passages", [])
                ],
                "quote": cell.quote[:300],
            }
            # Value right: a value category with a comparable expert value,
            # or any yes/no pair.
            right = None
            if cell.column.type == "yes_no":
                key = cell_value_key(cell) if cell.status == "done" else None
                right = key is not None and key == answered_by_expert
            elif category in VALUE_CATEGORIES and not answered_by_expert:
                # The expert found no such clause: "not found" is right
                # (counted for the confidence bands, not as a value).
                record["band_right"] = cell.status == "done" and cell.is_not_found
            elif category in VALUE_CATEGORIES and answered_by_expert:
                gold = gold_value(
                    category,
                    answers.get(category.lower(), ""),
                    texts.get(category.lower(), []),
                )
                if gold is not None:
                    record["gold"] = sorted(str(g) for g in gold)
                    key = (
                        None
                        if cell.is_not_found or cell.status != "done"
                        else cell_value_key(cell)
                    )
                    right = key is not None and key in gold
            record["right"] = right
            record.setdefault("band_right", right)
            if citation is not None and citation.verified and spans:
                record["quote_in"] = quote_inside(
                    spans, citation.source_offset_start, citation.source_offset_end
                )
                record["quote_ov"] = overlaps(
                    spans, citation.source_offset_start, citation.source_offset_end
                )
            if spans:
                regions = [
                    chunk_spans[c] for c in cell.cited_chunk_ids if c in chunk_spans
                ]
                record["cited"] = half_inside(spans, regions)
                retrieved = [
                    chunk_spans[c] for c in cell.retrieved_chunk_ids if c in chunk_spans
                ]
                record["cell@4"] = half_inside(spans, retrieved)
                if mode == "offline":
                    document = next(
                        d for d in documents if str(d.pk) == str(cell.row.document_uid)
                    )
                    hits = search_chunks(
                        tenant, cell.column.question, document=document, k=4
                    )
                    record["fts@4"] = half_inside(
                        spans,
                        [(h.chunk.start_offset, h.chunk.end_offset) for h in hits],
                    )
            records.append(record)
        return records


@contextmanager
def model_row(mode: str) -> Iterator[None]:
    """The responder a run measures: "offline" (the built-in reader, whatever
    the environment configures), "model" (the scripted server: plumbing, not
    a model), "configured" (the settings as they are: LLM_BASE_URL's model,
    or offline without one)."""
    from django.conf import settings

    keys = ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY", "LLM_JUDGE_MODEL")
    saved = {k: getattr(settings, k) for k in keys}
    server = None
    try:
        if mode == "offline":
            settings.LLM_BASE_URL = ""
            settings.LLM_JUDGE_MODEL = ""
        elif mode == "model":
            from docuiq.testing.llm_server import ScriptedLLMServer

            server = ScriptedLLMServer().start()
            settings.LLM_BASE_URL = server.base_url
            settings.LLM_MODEL = server.model
            settings.LLM_API_KEY = "bench"
            settings.LLM_JUDGE_MODEL = ""
        yield
    finally:
        if server is not None:
            server.stop()
        for key, value in saved.items():
            setattr(settings, key, value)


def _hand_labelled() -> dict:
    """The offline reader on HAND_LABELLED, each clause behind a distractor."""
    from tabular.reading import Passage, read_cell

    wrong = []
    for name, question, kind, text, expected in HAND_LABELLED:
        got = read_cell(
            question=question,
            name=name,
            column_type=kind,
            passages=[Passage(0, DISTRACTOR, 0), Passage(1, text, 1)],
        )
        if got.value != expected:
            wrong.append({"column": name, "expected": expected, "got": got.value})
    n = len(HAND_LABELLED)
    return {"n": n, "right": n - len(wrong), "wrong": wrong}


def _share(hits: int, n: int) -> float | None:
    return round(hits / n, 3) if n else None


def _metrics(records: list[dict]) -> dict:
    out: dict = {"cells": len(records)}
    per_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        if r["right"] is None:
            continue
        kind = (
            "yes_no"
            if r["type"] == "yes_no"
            else VALUE_CATEGORIES.get(r["category"], r["type"])
        )
        per_type[kind][0] += bool(r["right"])
        per_type[kind][1] += 1
    out["value_right"] = {
        k: {"right": _share(h, n), "n": n} for k, (h, n) in sorted(per_type.items())
    }
    h = sum(v[0] for v in per_type.values())
    n = sum(v[1] for v in per_type.values())
    typed = [v for k, v in per_type.items() if k != "yes_no"]
    out["value_right_overall"] = {"right": _share(h, n), "n": n}
    out["value_right_typed"] = {
        "right": _share(sum(v[0] for v in typed), sum(v[1] for v in typed)),
        "n": sum(v[1] for v in typed),
    }
    done = [r for r in records if r["status"] == "done"]
    empty = [r for r in done if not r["expert_answered"]]
    answered = [r for r in done if r["expert_answered"]]
    out["not_found_on_empty"] = {
        "share": _share(sum(r["not_found"] for r in empty), len(empty)),
        "n": len(empty),
    }
    out["not_found_on_answered"] = {
        "share": _share(sum(r["not_found"] for r in answered), len(answered)),
        "n": len(answered),
    }
    quoted = [r for r in answered if "quote_in" in r and not r["not_found"]]
    out["quote_in"] = {
        "share": _share(sum(r["quote_in"] for r in quoted), len(quoted)),
        "n": len(quoted),
    }
    out["quote_ov"] = {
        "share": _share(sum(r["quote_ov"] for r in quoted), len(quoted)),
        "n": len(quoted),
    }
    for metric in ("fts@4", "cell@4", "cited"):
        having = [r for r in answered if metric in r]
        out[metric] = {
            "share": _share(sum(r[metric] for r in having), len(having)),
            "n": len(having),
        }
    # Every labelled cell shows an answer: a value, "Yes"/"No", or "not found".
    labelled = [r for r in done if r.get("band_right") is not None]
    out["bands"] = _bands(labelled)
    # The same over cells that state a value (no "not found", no yes/no "No").
    out["bands_found"] = _bands([r for r in labelled if not r["not_found"]])
    rules: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in labelled:
        rules[r["rule"]][0] += bool(r["band_right"])
        rules[r["rule"]][1] += 1
    out["rules"] = {
        k: {"accuracy": _share(a, b), "n": b} for k, (a, b) in sorted(rules.items())
    }
    return out


def _bands(labelled: list[dict]) -> dict:
    bands = {}
    for band in BANDS:
        inside = [r for r in labelled if r["confidence"] == band]
        bands[band] = {
            "accuracy": _share(sum(bool(r["band_right"]) for r in inside), len(inside)),
            "coverage": _share(len(inside), len(labelled)),
            "n": len(inside),
        }
    return bands


def _print(split: str, mode: str, m: dict) -> None:
    def pct(x):
        return "  —  " if x is None else f"{x:>5.0%}"

    print(f"\n== {split} / {mode}: {m['cells']} cells")
    for kind, v in m["value_right"].items():
        print(f"  value right  {kind:<13}{pct(v['right'])}  n={v['n']}")
    v = m["value_right_overall"]
    print(
        f"  value right  {'ALL':<13}{pct(v['right'])}  n={v['n']}   (target >= 70% offline)"
    )
    v = m["not_found_on_empty"]
    print(
        f"  not found on empty pairs    {pct(v['share'])}  n={v['n']}   (target >= 80%)"
    )
    v = m["not_found_on_answered"]
    print(
        f"  not found on answered pairs {pct(v['share'])}  n={v['n']}   (target <= 10%)"
    )
    for metric in ("quote_in", "quote_ov", "fts@4", "cell@4", "cited"):
        v = m[metric]
        print(f"  {metric:<28}{pct(v['share'])}  n={v['n']}")
    for band, v in m["bands"].items():
        print(
            f"  band {band:<8} accuracy {pct(v['accuracy'])}  coverage "
            f"{pct(v['coverage'])}  n={v['n']}   (high: >= 90%, covering >= 30%)"
        )
    for band, v in m["bands_found"].items():
        print(
            f"  band {band:<8} accuracy {pct(v['accuracy'])}  coverage "
            f"{pct(v['coverage'])}  n={v['n']}   (cells stating a value only)"
        )
    for rule, v in m["rules"].items():
        print(f"    rule {rule:<26} accuracy {pct(v['accuracy'])}  n={v['n']}")


if __name__ == "__main__":
    raise SystemExit(main())
