"""Chat overhead benchmark (issue 4): the time the app adds around the model
per question (retrieval, prompt, extraction, storing, verification), median
and p95, on N documents, against the scripted model server on loopback.

The model's own time is measured from the client side of each call and
subtracted, so the figure is what DocuIQ itself costs. Prints the figures and
writes bench/results/chat.json.   .venv/bin/python bench/chat.py [--documents 1000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _django

QUESTIONS = [
    "What is the notice period for termination of the agreement?",
    "When must the customer pay each invoice?",
    "What interest applies to late payments?",
    "How long does the confidentiality obligation survive?",
    "Which courts have jurisdiction over disputes?",
    "What insurance must the supplier maintain?",
    "Can either party assign the agreement?",
    "What is the cap on liability?",
]


def _documents(n: int) -> None:
    from accounts.services import tenant_create
    from docuiq.testing.factories import make_document

    clauses = [
        "Either Party may terminate this Agreement for convenience upon {n} days' prior written notice.",
        "The Customer shall pay each undisputed invoice within {n} days of receipt.",
        "Late payments shall bear interest at the rate of {p}% per month.",
        "The obligations of confidentiality shall survive for {y} years after termination.",
        "The courts of {c} shall have exclusive jurisdiction over any dispute.",
        "The Supplier shall maintain professional indemnity insurance of not less than ${m},000,000.",
        "Neither Party may assign this Agreement without the prior written consent of the other Party.",
        "Each Party's total liability shall not exceed the fees paid in the preceding {y} months.",
    ]
    rng = random.Random(3)
    tenant = tenant_create(slug="bench-chat")
    filler = (
        "This clause is part of the general terms and applies to all services, deliverables, "
        "statements of work and amendments agreed between the parties from time to time. "
    )
    for i in range(n):
        paragraphs = []
        for clause in rng.sample(clauses, 5):
            paragraphs.append(
                filler * rng.randint(2, 5)
                + clause.format(
                    n=rng.choice([30, 45, 60, 90]),
                    p=rng.choice([1, 1.5, 2]),
                    y=rng.choice([2, 3, 5]),
                    c=rng.choice(["New York", "Delaware", "London"]),
                    m=rng.choice([1, 2, 5]),
                )
            )
        make_document(
            tenant,
            ["\n\n".join(paragraphs[:3]), "\n\n".join(paragraphs[3:])],
            title=f"Contract {i:04d}",
            source_type="pdf",
        )
    return tenant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument(
        "--quick", action="store_true", help="20 documents, 5 questions: runs only"
    )
    args = parser.parse_args()
    if args.quick:
        args.documents, args.questions = 20, 5

    _django.setup()
    from django.conf import settings
    from django.test.utils import override_settings

    from accounts.scoping import tenant_scope
    from chat.services import message_ask, session_create
    from docuiq.testing.llm_server import ScriptedLLMServer
    from ingest.search import refresh_statistics
    from llm.openai_compat import OpenAICompatProvider

    started = time.perf_counter()
    tenant = _documents(args.documents)
    refresh_statistics(force=True)
    print(
        f"  {args.documents} documents ready in {time.perf_counter() - started:.1f} s"
    )

    model_time: list[float] = []
    original_complete = OpenAICompatProvider.complete

    def timed_complete(self, *a, **kw):
        t0 = time.perf_counter()
        try:
            return original_complete(self, *a, **kw)
        finally:
            model_time.append(time.perf_counter() - t0)

    OpenAICompatProvider.complete = timed_complete
    totals, overheads, model_s = [], [], []
    with (
        ScriptedLLMServer(mode="extractive") as server,
        override_settings(
            LLM_BASE_URL=server.base_url,
            LLM_MODEL="scripted-model",
            CELERY_TASK_ALWAYS_EAGER=True,
        ),
        tenant_scope(tenant),
    ):
        assert settings.LLM_BASE_URL
        session = session_create(tenant=tenant, user=None)
        for i in range(args.questions + 5):
            model_time.clear()
            t0 = time.perf_counter()
            message = message_ask(
                session=session, question=QUESTIONS[i % len(QUESTIONS)]
            )
            from citations.services import message_citations_verify

            message_citations_verify(
                message_id=message.pk
            )  # verification is part of the cost
            total = time.perf_counter() - t0
            if i < 5:
                continue  # warm-up
            assert message.status == "complete", message.error
            totals.append(total * 1000)
            model_s.append(sum(model_time) * 1000)
            overheads.append((total - sum(model_time)) * 1000)
    result = {
        "documents": args.documents,
        "questions": args.questions,
        "overhead_ms": {
            "median": round(_django.percentile(overheads, 50), 2),
            "p95": round(_django.percentile(overheads, 95), 2),
        },
        "model_ms": {"median": round(_django.percentile(model_s, 50), 2)},
        "total_ms": {
            "median": round(_django.percentile(totals, 50), 2),
            "p95": round(_django.percentile(totals, 95), 2),
        },
        "target_overhead_p95_ms": 100,
        "quick": args.quick,
    }
    print(
        f"  app overhead per question: median {result['overhead_ms']['median']:.1f} ms, "
        f"p95 {result['overhead_ms']['p95']:.1f} ms (target p95 < 100 ms); "
        f"model {result['model_ms']['median']:.1f} ms median"
    )
    _django.RESULTS.mkdir(parents=True, exist_ok=True)
    (_django.RESULTS / "chat.json").write_text(json.dumps(result, indent=2))
    print(f"wrote {_django.RESULTS / 'chat.json'}")


if __name__ == "__main__":
    main()
