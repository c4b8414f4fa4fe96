"""What a model reads for a scoped question (issue 35): on CUAD contracts and
ContractNLI dev NDAs, the share that fit the context budget whole, and the
prompt tokens per scoped question, against the old six-chunk prompt.

Runs the real chat turn (chat.services.message_ask on a chat with the one
document picked) against the scripted model server in extractive mode: the
server is no model, so nothing here grades answers; it measures what the
model is sent. Embeddings off (full-text retrieval) to spare the shared
machine. Prints the figures and writes bench/results/reading_budget.json.

    nice .venv/bin/python bench/reading_budget.py [--cuad 20] [--nda 20]
        [--corpus ../shared/corpus] [--quick]

--quick: bench/evaluate.py's built-in NDA (in ContractNLI's layout) and the
demo contract PDF (demo/) in place of the corpus; results go where
BENCH_RESULTS points. Only proves the script runs.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, ROOT

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
# Corpus-relative: --quick reads the same layout from a built-in corpus.
CUAD_PDFS = Path("cuad") / "contracts_pdf"
NDA_JSON = Path("contractnli") / "dev.json"
# A real PDF for --quick, so the PDF extraction path runs as on CUAD's.
DEMO_PDF = ROOT / "demo" / "master-services-agreement.pdf"
QUESTION = "Under what conditions may a party terminate this agreement?"


def _ingest(tenant, name: str, data: bytes):
    from accounts.scoping import tenant_scope
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    with tenant_scope(tenant):
        document = document_upload(
            tenant=tenant, upload=Upload(filename=name, stream=io.BytesIO(data))
        )
        return Document.objects.get(pk=document.pk)


def _measure(tenant, document, server) -> dict:
    from accounts.scoping import tenant_scope
    from chat.retrieval import retrieve
    from chat.scope import scope_for
    from chat.services import message_ask, session_create
    from ingest.sections import estimate_tokens
    from llm.prompting import build_messages

    with tenant_scope(tenant):
        session = session_create(tenant=tenant, user=None, documents=[document])
        server.reset()
        message = message_ask(session=session, question=QUESTION)
        prompt = server.last_request.prompt
        reading = (message.payload.get("searched") or {}).get("reading") or [{}]
        # The old model path: the top six chunks in the plain prompt.
        scope = scope_for(session=session, question=QUESTION)
        six = retrieve(session=session, scope=scope, k=6)
        old = build_messages(QUESTION, [r.prompt_source() for r in six])
        text = document.current_revision.normalized_content
    return {
        "title": document.title,
        "status": message.status,
        "chars": len(text),
        "document_tokens": estimate_tokens(text),
        "whole": bool(reading[0].get("whole")),
        "sections_read": reading[0].get("sections_read"),
        "sections_total": reading[0].get("sections_total"),
        "prompt_tokens": estimate_tokens(prompt),
        "prompt_tokens_4cpt": len(prompt) // 4,
        "six_chunk_prompt_tokens": estimate_tokens("\n\n".join(m.content for m in old)),
    }


def _summary(rows: list[dict]) -> dict:
    if not rows:
        return {}
    whole = sum(r["whole"] for r in rows)
    median = statistics.median(r["prompt_tokens"] for r in rows)
    old = statistics.median(r["six_chunk_prompt_tokens"] for r in rows)
    share_read = statistics.median(
        min(1.0, r["sections_read"] / r["sections_total"])
        for r in rows
        if r["sections_total"]
    )
    return {
        "documents": len(rows),
        "fit_whole": whole,
        "fit_whole_share": round(whole / len(rows), 3),
        "median_document_tokens": statistics.median(r["document_tokens"] for r in rows),
        "median_prompt_tokens": median,
        "median_six_chunk_prompt_tokens": old,
        "prompt_ratio_vs_six_chunks": round(median / old, 2) if old else None,
        "median_share_of_sections_read": round(share_read, 3),
        "failed": sum(r["status"] != "complete" for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuad", type=int, default=20)
    parser.add_argument("--nda", type=int, default=20)
    parser.add_argument("--context", type=int, default=32768)
    parser.add_argument(
        "--corpus", default=os.environ.get("DOCUIQ_CORPUS") or str(CORPUS)
    )
    parser.add_argument(
        "--quick", action="store_true", help="built-in NDA and demo PDF: runs only"
    )
    args = parser.parse_args(argv)
    if not args.quick:
        return _run(args, Path(args.corpus))
    from evaluate import quick_corpus

    with tempfile.TemporaryDirectory(prefix="docuiq-reading-budget-") as tmp:
        corpus, _questions = quick_corpus(Path(tmp))
        (corpus / CUAD_PDFS).mkdir(parents=True)
        shutil.copy(DEMO_PDF, corpus / CUAD_PDFS / DEMO_PDF.name)
        return _run(args, corpus)


def _run(args: argparse.Namespace, corpus: Path) -> int:

    from docuiq.testing.llm_server import ScriptedLLMServer

    server = ScriptedLLMServer(mode="extractive").start()
    os.environ.update(
        {
            "LLM_BASE_URL": server.base_url,
            "LLM_MODEL": "scripted-model",
            "LLM_API_KEY": "bench",
            "LLM_CONTEXT_TOKENS": str(args.context),
            "EMBEDDINGS": "off",
            "LOG_LEVEL": "WARNING",
        }
    )
    import _django

    _django.setup()
    from accounts.services import tenant_create

    tenant = tenant_create(slug="bench-reading", name="Reading")
    rows: dict[str, list[dict]] = {"cuad": [], "nda": []}
    for pdf in sorted((corpus / CUAD_PDFS).iterdir())[: args.cuad]:
        document = _ingest(tenant, pdf.name, pdf.read_bytes())
        if document.status == "ready":
            rows["cuad"].append(_measure(tenant, document, server))
    ndas = json.loads((corpus / NDA_JSON).read_text())["documents"][: args.nda]
    for nda in ndas:
        name = f"nda-{nda['id']}.txt"
        document = _ingest(tenant, name, nda["text"].encode())
        if document.status == "ready":
            rows["nda"].append(_measure(tenant, document, server))
    server.stop()
    result = {
        "quick": args.quick,
        "question": QUESTION,
        "context_tokens": args.context,
        "cuad": _summary(rows["cuad"]),
        "nda": _summary(rows["nda"]),
        "rows": rows,
    }
    for corpus in ("cuad", "nda"):
        s = result[corpus]
        if not s:
            continue
        print(
            f"{corpus}: {s['fit_whole']}/{s['documents']} fit {args.context} tokens "
            f"whole ({s['fit_whole_share']:.0%}); median prompt "
            f"{s['median_prompt_tokens']:.0f} tokens vs {s['median_six_chunk_prompt_tokens']:.0f} "
            f"with six chunks ({s['prompt_ratio_vs_six_chunks']}x); median share of "
            f"sections read {s['median_share_of_sections_read']:.0%}; failed {s['failed']}"
        )
    out = RESULTS / "reading_budget.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
