"""`manage.py evaluate` / `make eval`: answers, tabular and playbook on two corpora.

    .venv/bin/python bench/evaluate.py [--corpus cuad|nda|all] [--limit N]
        [--questions N] [--split tune|report] [--parts answers,tabular,playbook]
        [--corpus-dir ../shared/corpus] [--out FILE] [--quick]

Runs on a SQLite database of its own (never the app's) and prints one row
per responder and corpus: the built-in offline responder always, and the
model `LLM_BASE_URL` configures when one is set (side by side, same run).

Corpora (never copied into the repository):

* CUAD: the 20 contract PDFs of `cuad/`, ingested by the product, the
  experts' spans (gold_spans.jsonl) carried over to the extracted text.
  Questions: bench/retrieval_questions.json, each category's first named
  wording, asked among all the contracts loaded (so "right document"
  means something); a category the contract lacks is a question whose
  right answer is "not found". `--split` picks the tune or report half.
* ContractNLI dev NDAs (`contractnli/dev.json`; never the test split): each
  NDA's text ingested, each of the 17 hypotheses asked as a person would
  (NDA_QUESTIONS, written once from the hypotheses before any run) in a chat
  scoped to that NDA. Entailment and Contradiction: the answer exists (the
  evidence spans are the clause); NotMentioned: "not found" is right.

Figures (per responder, per corpus):

* right document: share of verified citations from the document asked about;
* cites the clause: questions whose answer exists with a verified citation
  overlapping an expert span;
* clause presented as the answer: the same, that citation marked `answers`;
* false "not found": "not found" where the answer exists;
* "not found" when absent: where the category is absent / NotMentioned;
* "answers" marks: share of citations marked `answers` that overlap the
  clause, and share of answers with one such mark (how often it marks);
* tokens and seconds per answer;
* tabular (bench/tabular_eval.py's review, one column per category or
  hypothesis): value right, "not found" on empty / answered pairs, "high"
  confidence on a "not found" where the clause exists;
* playbook (bench/playbook_eval.py's positions; NDA_POSITIONS for NDAs):
  present clauses found and cited inside the clause, right where present,
  wrongly "missing", "non-exclusive" read as exclusivity.

`--questions N` samples a slow model: at most N questions per document
(those whose answer exists and those whose answer is absent in turn), the
first N tabular columns and the first N playbook positions; every row of
the run gets the same sample. `--quick` runs every part on a built-in
contract and NDA (no corpus) in seconds: it proves the command runs; its
figures mean nothing. Results go to bench/results/evaluate.json (or --out).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from itertools import zip_longest
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for _path in (ROOT, BENCH):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import _answers  # noqa: E402
import playbook_eval as pe  # noqa: E402
import retrieval_eval as re_eval  # noqa: E402
import tabular_eval as te  # noqa: E402

RESULTS = Path(os.environ.get("BENCH_RESULTS") or BENCH / "results")
PARTS = ("answers", "tabular", "playbook")
CORPORA = ("cuad", "nda")

# ContractNLI's 17 hypotheses as a person would ask them, written once from
# `labels` (the hypothesis and its short description) before any run.
NDA_QUESTIONS = {
    "nda-1": "Does all confidential information have to be expressly identified or marked as confidential by the disclosing party?",
    "nda-2": "Is confidential information limited to technical information only?",
    "nda-3": "Does confidential information include information disclosed orally?",
    "nda-4": "May the receiving party use the confidential information only for the purpose stated in the agreement?",
    "nda-5": "Does the NDA let the receiving party share confidential information with its employees?",
    "nda-7": "May the receiving party share confidential information with consultants, agents or professional advisers?",
    "nda-8": "Must the receiving party notify the disclosing party if a law or a court requires it to disclose confidential information?",
    "nda-10": "Must the receiving party keep the existence of this agreement and its negotiations confidential?",
    "nda-11": "Is the receiving party forbidden to reverse engineer the disclosing party's products or samples?",
    "nda-12": "May the receiving party independently develop information similar to the confidential information?",
    "nda-13": "May the receiving party receive similar information from a third party?",
    "nda-15": "Does the agreement say that it grants no licence or right to the confidential information?",
    "nda-16": "Must the receiving party return or destroy the confidential information when the agreement ends?",
    "nda-17": "May the receiving party make copies of the confidential information?",
    "nda-18": "Is the receiving party forbidden to solicit or hire the disclosing party's employees?",
    "nda-19": "Do any obligations survive the termination or expiry of the agreement?",
    "nda-20": "May the receiving party keep some confidential information after it has to return or destroy it?",
}  # fmt: skip
PRESENT = ("Entailment", "Contradiction")

# An NDA playbook (positions by hypothesis short description), written
# before any run: the clause being there is the standard, but for a
# non-solicitation clause, which a recipient would rather not sign.
NDA_POSITIONS = [
    ("Return of confidential information", "Confidential information is returned or destroyed at the end.", "yes"),
    ("Survival of obligations", "Obligations survive termination.", "yes"),
    ("Sharing with employees", "Employees who need to know may receive it.", "yes"),
    ("Notice on compelled disclosure", "Notice before a compelled disclosure.", "yes"),
    ("No reverse engineering", "No reverse engineering.", "yes"),
    ("No solicitation", "No non-solicitation clause.", "no"),
]  # fmt: skip


# ------------------------------------------------------------------ corpora


def load_cuad(
    tenant,
    corpus: Path,
    questions: dict,
    *,
    limit: int | None,
    split: str | None,
) -> list:
    """CUAD's contracts, ingested from their PDFs (bench/retrieval_eval.py)."""
    return re_eval.ingest_corpus(
        tenant,
        corpus,
        questions,
        limit=limit,
        splits=(split,) if split else None,
    )


def nda_labels(corpus: Path) -> tuple[list[dict], dict]:
    data = json.loads((corpus / "contractnli" / "dev.json").read_text("utf-8"))
    return data["documents"], data["labels"]


def load_nda(tenant, corpus: Path, *, limit: int | None) -> list:
    """ContractNLI's dev NDAs, each text ingested as an upload, evidence
    spans carried over to the product's text by alignment; gold and labels
    are keyed by the hypothesis's short description."""
    from accounts.scoping import tenant_scope
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    documents, labels = nda_labels(corpus)
    out = []
    for record in documents[:limit] if limit else documents:
        text = record["text"]
        name = f"nda-{record['id']}-{Path(record['file_name']).stem}.txt"
        with tenant_scope(tenant):
            document = document_upload(
                tenant=tenant,
                upload=Upload(filename=name, stream=io.BytesIO(text.encode("utf-8"))),
            )
            document = Document.objects.select_related("current_revision").get(
                pk=document.pk
            )
        if document.status != Document.Status.READY:
            print(f"  skipped {name}: {document.error}", file=sys.stderr)
            continue
        alignment = re_eval.Alignment(
            text, document.current_revision.normalized_content
        )
        contract = re_eval.Contract(title=name, split="dev", document=document)
        annotations = record["annotation_sets"][0]["annotations"]
        for key, annotation in annotations.items():
            short = labels[key]["short_description"]
            contract.labels[short] = annotation["choice"]
            if annotation["choice"] not in PRESENT:
                continue
            for index in annotation["spans"]:
                start, end = record["spans"][index]
                placed = alignment.span(start, end)
                if placed is None:
                    contract.unaligned += 1
                    continue
                contract.gold.setdefault(short, []).append(placed)
        out.append(contract)
    return out


def _nda_keys(labels: dict) -> dict[str, str]:
    """Hypothesis key -> its short description, for those asked."""
    return {k: labels[k]["short_description"] for k in NDA_QUESTIONS if k in labels}


def nda_asks(contracts: list, labels: dict) -> list:
    short = _nda_keys(labels)
    return [
        _answers.Ask(
            contract,
            short[key],
            question,
            answerable=contract.labels.get(short[key]) in PRESENT
            and bool(contract.gold.get(short[key])),
            documents=(contract.document,),
        )
        for contract in contracts
        for key, question in NDA_QUESTIONS.items()
        if key in short and short[key] in contract.labels
    ]


def cuad_asks(contracts: list, questions: dict) -> list:
    """Each category's first named wording, the contract's names in turn
    (bench/_answers.py), asked among all the contracts loaded."""
    return [
        _answers.Ask(contract, category, question, answerable=with_gold)
        for with_gold in (True, False)
        for contract, category, question in _answers._named_questions(
            contracts, questions, with_gold=with_gold
        )
    ]


def sample(asks: list, per_document: int | None) -> list:
    """At most `per_document` asks per document, those whose answer exists
    and those whose answer is absent in turn (`--questions`)."""
    if per_document is None:
        return asks
    by_document: dict[str, tuple[list, list]] = {}
    for ask in asks:
        by_document.setdefault(ask.contract.title, ([], []))[not ask.answerable].append(
            ask
        )
    out = []
    for present, absent in by_document.values():
        turns = [
            a for pair in zip_longest(present, absent) for a in pair if a is not None
        ]
        out += turns[:per_document]
    return out


def _group(contracts: list) -> dict:
    """Contracts as bench/tabular_eval.py's rows: title -> (document, spans,
    answers, span texts), keyed by lower-case category."""
    return {
        c.title: (
            c.document,
            {k.lower(): v for k, v in c.gold.items()},
            {k.lower(): v for k, v in c.answers.items()},
            {k.lower(): v for k, v in c.texts.items()},
        )
        for c in contracts
    }


# ------------------------------------------------------------------ parts


def part_answers(tenant, asks: list) -> dict:
    from django.db import transaction

    with transaction.atomic():
        records = _answers.ask_all(tenant, asks)
        transaction.set_rollback(True)
    return {"figures": _answers.answer_figures(records), "records": records}


def cuad_columns(corpus: Path) -> list[dict]:
    return list(te.load_questions(te.load_categories(corpus)).values())


def nda_columns(labels: dict) -> list[dict]:
    return [
        {"name": short, "question": NDA_QUESTIONS[key], "type": "yes_no"}
        for key, short in _nda_keys(labels).items()
    ]


def part_tabular(tenant, columns: list[dict], contracts: list, mode: str) -> dict:
    records = te._run_split(tenant, columns, _group(contracts), "eval", mode)
    labels = {c.title: c.labels for c in contracts}
    for r in records:
        label = labels[r["contract"]].get(r["category"])
        if label is not None:  # an NDA: the expert's choice is the value
            r["right"] = _nda_cell_right(r, label)
            r["band_right"] = r["right"]
    metrics = te._metrics(records)
    answered = [r for r in records if r["expert_answered"] and r["status"] == "done"]
    metrics["high_on_not_found"] = sum(
        r["not_found"] and r["confidence"] == "high" for r in records
    )
    metrics["high_on_false_not_found"] = sum(
        r["not_found"] and r["confidence"] == "high" for r in answered
    )
    return {"figures": metrics, "records": records}


def _nda_cell_right(record: dict, label: str) -> bool:
    """Entailment: Yes; Contradiction: No; NotMentioned: not found (or No)."""
    yes = (record.get("typed") or {}).get("value")
    if record["status"] != "done":
        return False
    if label == "Entailment":
        return not record["not_found"] and yes is True
    if label == "Contradiction":
        return not record["not_found"] and yes is False
    return record["not_found"] or yes is False


def nda_playbook_data(labels: dict) -> dict:
    question = {short: NDA_QUESTIONS[key] for key, short in _nda_keys(labels).items()}
    return {
        "name": "NDA evaluation playbook",
        "positions": [
            {
                "title": title,
                "question": question[title],
                "type": "yes_no",
                "standard": standard,
                "rule": rule,
                "severity": "medium",
                "if_absent": "acceptable" if rule == "no" else "medium",
            }
            for title, standard, rule in NDA_POSITIONS
            if title in question
        ],
    }


def part_playbook(tenant, data: dict, contracts: list, mode: str) -> dict:
    from accounts.scoping import tenant_scope
    from playbook.schema import spec_from_data
    from playbook.services import playbook_create

    # One playbook per row: a tenant's playbook names are unique.
    data = {**data, "name": f"{data['name']} ({mode})"}
    with tenant_scope(tenant):
        playbook = playbook_create(tenant=tenant, spec=spec_from_data(data))
    records = pe._run(tenant, playbook, _group(contracts), "eval", mode)
    return {"figures": pe._metrics(records), "records": records}


# ------------------------------------------------------------------ the run


def rows_to_run() -> list[str]:
    """Offline always; the configured model beside it when one is set."""
    from django.conf import settings

    return ["offline"] + (["configured"] if settings.LLM_BASE_URL else [])


def row_name(mode: str) -> str:
    from django.conf import settings

    return "offline" if mode == "offline" else (settings.LLM_MODEL or "model")


def evaluate(
    *,
    corpus_dir: Path,
    corpora: tuple[str, ...],
    parts: tuple[str, ...],
    limit: int | None,
    split: str | None,
    questions: dict | None = None,
    per_document: int | None = None,
) -> dict:
    """Every part on every corpus for every responder row (Django is set up
    on a database of the evaluation's own). Returns the JSON-able result."""
    from accounts.services import tenant_create

    questions = questions or re_eval.load_questions()
    result: dict = {
        "corpora": {},
        "parts": list(parts),
        "limit": limit,
        "questions_per_document": per_document,
    }
    modes = rows_to_run()
    for name in corpora:
        t0 = time.monotonic()
        tenant = tenant_create(slug=f"eval-{name}", name=f"Evaluation {name}")
        if name == "cuad":
            contracts = load_cuad(
                tenant, corpus_dir, questions, limit=limit, split=split
            )
            asks = cuad_asks(contracts, questions)
            columns = cuad_columns(corpus_dir)
            playbook = pe.playbook_data()
        else:
            contracts = load_nda(tenant, corpus_dir, limit=limit)
            _documents, labels = nda_labels(corpus_dir)
            asks = nda_asks(contracts, labels)
            columns = nda_columns(labels)
            playbook = nda_playbook_data(labels)
        if per_document is not None:
            asks = sample(asks, per_document)
            columns = columns[:per_document]
            playbook = {**playbook, "positions": playbook["positions"][:per_document]}
        corpus_result: dict = {
            "documents": len(contracts),
            "ingest_seconds": round(time.monotonic() - t0, 1),
            "unaligned_gold": sum(c.unaligned for c in contracts),
            "rows": {},
        }
        print(
            f"{name}: {len(contracts)} documents ready in "
            f"{corpus_result['ingest_seconds']} s",
            file=sys.stderr,
        )
        for mode in modes:
            row: dict = {}
            records: dict = {}
            with te.model_row(mode):
                label = row_name(mode)
                if "answers" in parts:
                    got = part_answers(tenant, asks)
                    row["answers"], records["answers"] = got["figures"], got["records"]
            if "tabular" in parts:
                got = part_tabular(tenant, columns, contracts, mode)
                row["tabular"], records["tabular"] = got["figures"], got["records"]
            if "playbook" in parts:
                got = part_playbook(tenant, playbook, contracts, mode)
                row["playbook"], records["playbook"] = got["figures"], got["records"]
            corpus_result["rows"][label] = row
            corpus_result.setdefault("records", {})[label] = records
        result["corpora"][name] = corpus_result
    return result


def _pct(figure: dict | None) -> str:
    if not figure or figure.get("share") is None:
        return "—"
    return f"{figure['share']:.0%} ({figure['n']})"


COLUMNS = [
    ("right doc", lambda r: _pct(r.get("answers", {}).get("right_document"))),
    ("cites clause", lambda r: _pct(r.get("answers", {}).get("cites_clause"))),
    ("as answer", lambda r: _pct(r.get("answers", {}).get("presented_as_answer"))),
    ("false NF", lambda r: _pct(r.get("answers", {}).get("false_not_found"))),
    ("NF absent", lambda r: _pct(r.get("answers", {}).get("not_found_when_absent"))),
    ("marks hold", lambda r: _pct(r.get("answers", {}).get("answers_mark_holds_clause"))),
    ("marked", lambda r: _pct(r.get("answers", {}).get("answers_marked"))),
    ("tok/ans", lambda r: str(r.get("answers", {}).get("tokens_per_answer", "—"))),
    ("s/ans", lambda r: str(r.get("answers", {}).get("seconds_per_answer", "—"))),
    ("cell right", lambda r: _pct(r.get("tabular", {}).get("value_right_overall", {}) and {"share": r["tabular"]["value_right_overall"]["right"], "n": r["tabular"]["value_right_overall"]["n"]})),
    ("cell NF ans", lambda r: _pct(r.get("tabular", {}).get("not_found_on_answered"))),
    ("high NF", lambda r: str(r.get("tabular", {}).get("high_on_not_found", "—"))),
    ("pb found+cited", lambda r: _pct(r.get("playbook", {}).get("present_found_cited"))),
    ("pb right", lambda r: _pct(r.get("playbook", {}).get("right_where_present"))),
    ("pb wrongly missing", lambda r: _pct(r.get("playbook", {}).get("wrongly_missing"))),
    ("non-excl", lambda r: str(r.get("playbook", {}).get("non_exclusive_as_exclusivity", "—"))),
]  # fmt: skip


def table(result: dict) -> str:
    """One row per responder and corpus."""
    head = ["corpus", "model", *[c for c, _ in COLUMNS]]
    lines = [head]
    for corpus, data in result["corpora"].items():
        for model, row in data["rows"].items():
            lines.append([corpus, model, *[f(row) for _, f in COLUMNS]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True))
        for line in lines
    )


# ------------------------------------------------------------------ quick

QUICK_CONTRACT = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made between Acme Corp., a British Columbia "
    "corporation, and Widget Ltd.\n\n"
    "1. Governing Law. This Agreement shall be governed by the laws of the "
    "State of New York.\n\n"
    "2. Assignment. Neither party may assign this Agreement without the prior "
    "written consent of the other party.\n\n"
    "3. Term. This Agreement continues for three years from the Effective Date.\n"
)
QUICK_NDA = (
    "MUTUAL NON-DISCLOSURE AGREEMENT\n\n"
    "1. The Receiving Party may disclose Confidential Information to its "
    "employees who need to know it.\n\n"
    "2. Upon termination, the Receiving Party shall return or destroy all "
    "Confidential Information.\n\n"
    "3. The obligations of this Agreement survive its termination for two years.\n"
)


def quick_corpus(base: Path) -> tuple[Path, dict]:
    """A built-in contract (CUAD's layout) and NDA (ContractNLI's), and the
    questions file for the contract: the command's fixture."""
    te.write_cuad_corpus(
        base,
        QUICK_CONTRACT,
        [
            ("Governing Law", "Which state's law governs?", "Location",
             "governed by the laws of the State of New York", "New York"),
            ("Anti-Assignment", "Is consent needed to assign?", "Yes/No",
             "Neither party may assign this Agreement", "Yes"),
            ("Non-Compete", "Is there a non-compete?", "Yes/No", "", ""),
        ],
    )  # fmt: skip
    nli = base / "contractnli"
    nli.mkdir()
    spans = [
        [QUICK_NDA.index(s), QUICK_NDA.index(s) + len(s)]
        for s in (
            "The Receiving Party may disclose Confidential Information to its employees",
            "the Receiving Party shall return or destroy all Confidential Information",
        )
    ]
    labels = {
        "nda-5": {"short_description": "Sharing with employees", "hypothesis": ""},
        "nda-16": {
            "short_description": "Return of confidential information",
            "hypothesis": "",
        },
        "nda-18": {"short_description": "No solicitation", "hypothesis": ""},
    }
    document = {
        "id": 1,
        "file_name": "quick-nda.pdf",
        "text": QUICK_NDA,
        "spans": spans,
        "annotation_sets": [
            {
                "annotations": {
                    "nda-5": {"choice": "Entailment", "spans": [0]},
                    "nda-16": {"choice": "Entailment", "spans": [1]},
                    "nda-18": {"choice": "NotMentioned", "spans": []},
                }
            }
        ],
    }
    (nli / "dev.json").write_text(
        json.dumps({"documents": [document], "labels": labels})
    )
    questions = {
        "categories": {
            "Governing Law": {
                "questions": ["Which state's law governs this agreement?"],
                "named": ["Which law governs the {contract}?"],
                "value_kind": "jurisdiction",
            },
            "Anti-Assignment": {
                "questions": ["Can a party assign the agreement without consent?"],
                "named": ["Can the {contract} be assigned without consent?"],
                "value_kind": "yes_no",
            },
            "Non-Compete": {
                "questions": ["Is there a non-compete?"],
                "named": ["Is there a non-compete in the {contract}?"],
                "value_kind": "yes_no",
            },
        },
        "contracts": {"quick": {"names": ["Acme supply agreement"]}},
        "split": {"tune": ["quick"], "report": []},
    }
    return base, questions


# ------------------------------------------------------------------ main


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=(*CORPORA, "all"), default="all")
    parser.add_argument("--limit", type=int, default=None, help="first N documents")
    parser.add_argument(
        "--questions",
        type=int,
        default=None,
        help="at most N questions, columns and positions per document",
    )
    parser.add_argument("--split", choices=("tune", "report"), default=None)
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument(
        "--corpus-dir", default=os.environ.get("DOCUIQ_CORPUS", "../shared/corpus")
    )
    parser.add_argument("--out", default=str(RESULTS / "evaluate.json"))
    parser.add_argument("--quick", action="store_true", help="built-in fixture")
    args = parser.parse_args(argv)
    args.parts = tuple(p.strip() for p in args.parts.split(",") if p.strip())
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    corpora = CORPORA if args.corpus == "all" else (args.corpus,)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="docuiq-evaluate-") as var:
        re_eval.boot(Path(var), offline=False)
        questions = None
        corpus_dir = Path(args.corpus_dir).resolve()
        if args.quick:
            corpus_dir, questions = quick_corpus(Path(var) / "corpus")
        elif not (corpus_dir / "cuad").exists():
            print(f"skipped: no corpus under {corpus_dir}", file=sys.stderr)
            return 0
        result = evaluate(
            corpus_dir=corpus_dir,
            corpora=corpora,
            parts=args.parts,
            limit=args.limit,
            split=args.split,
            questions=questions,
            per_document=args.questions,
        )
    result["quick"] = args.quick
    result["seconds"] = round(time.monotonic() - started, 1)
    print(table(result))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(f"wrote {out} ({result['seconds']} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
