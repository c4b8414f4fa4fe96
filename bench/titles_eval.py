"""Document titles on real contracts (issue 32): does each title name the
document's kind, is any page furniture, do two contracts share one?

    .venv/bin/python bench/titles_eval.py [--corpus ../shared/corpus] [--extra DIR] [--quick]

The PDFs are extracted by the product's own extractor (in this process, with
the default limits) and titled as ingestion titles them: `document_title` on
the opening pages, then `distinct_title` against the titles before it, as one
tenant uploading them in name order would get. --extra adds a folder of more
PDFs (for instance CUAD training contracts taken from a public copy of the
dataset; they are read, never committed).

* "names a kind": the title holds a kind noun (agreement, contract, licence,
  amendment, statement, power of attorney, ...);
* "agrees with the file name": where an EDGAR file name ends with a kind
  ("..._Reseller Agreement.pdf"), the title shares a word with it beyond
  "agreement";
* "furniture": the title reads as a legend, stamp, logo, address or running
  header, by this script's own list of signs (FURNITURE_SIGNS, written from
  the titles issue 32 reports), not the product's rules;
* "shared": titles given to more than one document.

The ten worst titles are printed (no kind first, then from the file name,
then the longest) for a person to read. --quick titles three built-in PDFs
only to prove the script runs. Results: bench/results/titles.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS

FURNITURE_SIGNS = re.compile(
    r"securities and exchange|confidential treatment|redacted|omitted|\blogo\b|"
    r"^case \d|\bdoc \d|corporate address|page \d+ of \d+|^exhibit [\d.]+$|"
    r"^\[.*\]$|rule \d+|filed separately|/s/|^by:|last updated|^dated|"
    r"\b\d{6,}\b|street\b|^execution (copy|version)$|^\(translation\)$",
    re.I,
)
KIND = re.compile(
    r"\b(agreements?|contracts?|licen[cs]e|lease|amendments?|addendum|statement|"
    r"power of attorney|memorandum|deed|indenture|guarant(y|ee)|terms and conditions|"
    r"letter|plan|charter|protocol|certificate|consent|waiver|undertaking)\b",
    re.I,
)


def title_pdfs(paths: list[Path]) -> list[dict]:
    from ingest.extractors import extract
    from ingest.extractors.titles import (
        distinct_title,
        document_title,
        filename_kind,
        opening_of,
        title_key,
    )
    from ingest.limits import Limits

    taken: set[str] = set()
    rows = []
    for path in sorted(paths, key=lambda p: p.name):
        try:
            extracted = extract(
                path,
                filename=path.name,
                content_type="application/pdf",
                limits=Limits(),
            )
        except Exception as exc:  # a bench reports a bad file, it does not stop
            rows.append({"file": path.name, "error": str(exc)})
            continue
        choice = document_title(
            extracted.metadata.get("title") or "",
            opening_of(extracted.pages),
            path.name,
        )
        title = distinct_title(choice, path.name, taken)
        taken.add(title_key(title))
        rows.append(
            {
                "file": path.name,
                "title": title,
                "source": choice.source,
                "filename_kind": filename_kind(path.name),
            }
        )
    return rows


def figures(rows: list[dict]) -> dict:
    titled = [r for r in rows if "title" in r]
    n = len(titled)
    kind = [r for r in titled if KIND.search(r["title"])]
    furniture = [r for r in titled if FURNITURE_SIGNS.search(r["title"])]
    counts = Counter(r["title"].casefold() for r in titled)
    shared = sorted(t for t, c in counts.items() if c > 1)
    agree = []
    differs = []
    for r in titled:
        words = set(re.findall(r"[a-z]+", r["filename_kind"].lower()))
        words -= {"agreement", "and", "the", "of", "to", "contract"}
        agree.append(
            not words or bool(words & set(re.findall(r"[a-z]+", r["title"].lower())))
        )
        if not agree[-1]:
            differs.append({"title": r["title"], "file_kind": r["filename_kind"]})

    def badness(r: dict) -> tuple:
        return (
            not KIND.search(r["title"]),
            bool(FURNITURE_SIGNS.search(r["title"])),
            r["source"] in {"filename", "filename_kind"},
            len(r["title"]),
        )

    worst = sorted(titled, key=badness, reverse=True)[:10]
    return {
        "documents": n,
        "errors": len(rows) - n,
        "names_kind": round(len(kind) / n, 3) if n else None,
        "agrees_with_filename_kind": round(sum(agree) / n, 3) if n else None,
        "furniture": len(furniture),
        "furniture_titles": [r["title"] for r in furniture],
        "shared_titles": shared,
        "differs_from_filename_kind": differs,
        "sources": dict(Counter(r["source"] for r in titled)),
        "worst_ten": [{"title": r["title"], "file": r["file"]} for r in worst],
    }


def _print(name: str, result: dict) -> None:
    print(
        f"{name}: {result['documents']} PDFs, names a kind {result['names_kind']:.1%}, "
        f"agrees with the file name's kind {result['agrees_with_filename_kind']:.1%}, "
        f"furniture {result['furniture']}, shared titles {len(result['shared_titles'])}"
    )
    print(f"  sources: {result['sources']}")
    for row in result["worst_ten"]:
        print(f"  worst: {row['title']!r}  ({row['file'][:70]})")


def _quick_pdfs(folder: Path) -> list[Path]:
    from docuiq.testing import pdfgen

    pages = {
        "ACME_EX-10.1_Supply Agreement.pdf": [
            "Exhibit 10.1\nCONFIDENTIAL TREATMENT REQUESTED\nSUPPLY AGREEMENT\n"
            "This Supply Agreement is made between Acme Widgets, Inc. and Beta Corp."
        ],
        "BETA_EX-10.2_Supply Agreement.pdf": [
            "[LOGO]\nSUPPLY AGREEMENT\nThis Supply Agreement is made between "
            "Gamma Foods LLC and Delta Stores, Inc."
        ],
        "notes.pdf": ["Board minutes\nThe board met on Monday."],
    }
    return [pdfgen.text_pages_pdf(folder / name, text) for name, text in pages.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", default=os.environ.get("DOCUIQ_CORPUS", "../shared/corpus")
    )
    parser.add_argument("--extra", action="append", default=[], help="more PDFs")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(RESULTS / "titles.json"))
    args = parser.parse_args(argv)
    started = time.monotonic()
    result: dict = {}
    if args.quick:
        with tempfile.TemporaryDirectory(prefix="docuiq-titles-") as folder:
            result["quick"] = figures(title_pdfs(_quick_pdfs(Path(folder))))
            _print("quick", result["quick"])
    else:
        corpus = Path(args.corpus).resolve() / "cuad" / "contracts_pdf"
        dev = sorted(p for p in corpus.glob("*") if p.suffix.lower() == ".pdf")
        if not dev:
            print(f"skipped: no CUAD PDFs under {corpus}", file=sys.stderr)
            return 0
        result["cuad_dev"] = figures(title_pdfs(dev))
        _print("CUAD dev", result["cuad_dev"])
        extra = [
            p
            for folder in args.extra
            for p in sorted(Path(folder).glob("*"))
            if p.suffix.lower() == ".pdf"
        ]
        if extra:
            result["extra"] = figures(title_pdfs(extra))
            _print("extra", result["extra"])
            result["all"] = figures(title_pdfs(dev + extra))
            _print("all", result["all"])
    result["seconds"] = round(time.monotonic() - started, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
