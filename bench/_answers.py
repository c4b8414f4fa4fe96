"""The answer parts of bench/retrieval_eval.py (issue 23): what the chat does
with a question, end to end, on the CUAD development contracts.

* ``part_product_scoped``: the chat's own retrieval for a question asked
  about one contract (picked in the chat): top-4 holds the expert's clause.
* ``part_named``: the question names the contract among all 20 ("... in the
  Lime Energy distributor agreement?"): is it the contract that is searched,
  and what share of the top-4 chunks come from it.
* ``part_chat``: the whole turn with the offline responder (retrieval,
  relevance, the answer, citations, verification): share of verified
  citations from the named contract; share of answers about a clause the
  contract has with a verified citation holding the expert's clause; share of
  questions about a clause the contract lacks that answer "not found", and
  "not found" on questions the contract answers.
* ``part_relevance``: of the citations the chat marked, how many marked
  answers / related / off-topic hold the expert's clause.

A quote "holds the expert's clause" when it covers at least half of a gold
span, or lies at least half inside one (a sentence quoted from a long clause).
Each (contract, category) is asked once per part with the category's first
wording (named: its first named wording, with the contract's names in turn),
so every contract weighs alike; splits are reported apart (tune / report).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

TOP_K = 4  # as bench/retrieval_eval.py


def holds(spans: list[tuple[int, int]], region: tuple[int, int]) -> bool:
    """The region covers half of a gold span, or lies half inside one."""
    a, b = region
    for s, e in spans:
        overlap = min(e, b) - max(s, a)
        if overlap <= 0:
            continue
        if 2 * overlap >= e - s or 2 * overlap >= b - a:
            return True
    return False


def _share(hit: int, n: int) -> float | None:
    return round(hit / n, 3) if n else None


def _session(tenant, **kwargs):
    from chat.services import session_create

    return session_create(tenant=tenant, user=None, **kwargs)


def _all_categories(questions: dict) -> list[str]:
    return list(questions["categories"])


def part_product_scoped(tenant, contracts, questions: dict) -> dict:
    """The chat's retrieval for a contract picked in the chat."""
    from accounts.scoping import tenant_scope
    from chat.retrieval import retrieve
    from chat.scope import scope_for

    counts: dict = defaultdict(lambda: [0, 0])
    with tenant_scope(tenant):
        for contract in contracts:
            session = _session(tenant, documents=[contract.document])
            for category, spec in questions["categories"].items():
                spans = contract.gold.get(category)
                if not spans:
                    continue
                for wording in spec["questions"]:
                    scope = scope_for(session=session, question=wording)
                    got = retrieve(session=session, scope=scope, k=TOP_K)
                    regions = [
                        (r.hit.chunk.start_offset, r.hit.chunk.end_offset) for r in got
                    ]
                    hit = any(_covers_half(spans, region) for region in regions)
                    counts[contract.split][0] += hit
                    counts[contract.split][1] += 1
    result = {split: _share(h, n) for split, (h, n) in counts.items()}
    print(
        "product scoped (the chat's search inside a picked contract), top-4 holds the clause:"
    )
    for split, share in result.items():
        print(f"  {split:<8}{counts[split][1]:>6} questions {share:>8.1%}")
    return {"hit_at_4": result, "questions": {s: c[1] for s, c in counts.items()}}


def _covers_half(spans, region) -> bool:
    a, b = region
    return any(2 * (min(e, b) - max(s, a)) >= e - s for s, e in spans)


def _named_questions(contracts, questions: dict, *, with_gold: bool | None):
    """(contract, category, question) for the first named wording of each
    category, the contract's names in turn."""
    for contract in contracts:
        names = questions["contracts"][contract.title]["names"]
        turn = 0
        for category, spec in questions["categories"].items():
            has = bool(contract.gold.get(category))
            if with_gold is not None and has != with_gold:
                continue
            name = names[turn % len(names)]
            turn += 1
            yield contract, category, spec["named"][0].replace("{contract}", name)


def part_named(tenant, contracts, questions: dict) -> dict:
    """Among all 20 contracts: is the named one searched, and what share of
    the top 4 comes from it."""
    from accounts.scoping import tenant_scope
    from chat.retrieval import retrieve
    from chat.scope import scope_for

    named = defaultdict(lambda: [0, 0])
    chunks = defaultdict(lambda: [0, 0])
    with tenant_scope(tenant):
        session = _session(tenant)
        for contract, _category, question in _named_questions(
            contracts, questions, with_gold=True
        ):
            scope = scope_for(session=session, question=question)
            got = retrieve(session=session, scope=scope, k=TOP_K)
            split = contract.split
            named[split][0] += [d.pk for d in scope.documents] == [contract.document.pk]
            named[split][1] += 1
            chunks[split][0] += sum(
                r.hit.chunk.document_id == contract.document.pk for r in got
            )
            chunks[split][1] += len(got) or TOP_K
    result = {
        "named_exactly": {s: _share(*named[s]) for s in named},
        "top4_from_contract": {s: _share(*chunks[s]) for s in chunks},
        "questions": {s: named[s][1] for s in named},
    }
    print("named: the question names the contract among all 20")
    for split in named:
        print(
            f"  {split:<8}{named[split][1]:>6} questions"
            f"  named exactly {result['named_exactly'][split]:>7.1%}"
            f"  top-4 from it {result['top4_from_contract'][split]:>7.1%}"
        )
    return result


@dataclass(frozen=True)
class Ask:
    """One question of an evaluation: asked about `contract`'s `key`
    (a CUAD category, a ContractNLI hypothesis), in a chat of its own that
    searches `documents` (none: all the tenant's documents)."""

    contract: Any
    key: str
    question: str
    answerable: bool
    documents: tuple = ()


def ask_all(tenant, asks: Iterable[Ask]) -> list[dict]:
    """Whole turns with the configured responder, one fresh chat each (no
    history from another question), citations verified: a record per
    question (not found, tokens, seconds, every citation against the
    experts' spans)."""
    from accounts.scoping import tenant_scope
    from chat.services import message_ask
    from citations.models import MessageCitation
    from citations.services import message_citations_verify

    records: list[dict] = []
    with tenant_scope(tenant):
        for ask in asks:
            session = _session(tenant, documents=list(ask.documents))
            t0 = time.perf_counter()
            message = message_ask(session=session, question=ask.question)
            seconds = time.perf_counter() - t0
            message_citations_verify(message_id=message.pk)
            spans = ask.contract.gold.get(ask.key, []) if ask.answerable else []
            own = ask.contract.document.pk
            citations = []
            # In the order the answer quotes them (a curve over how many it quotes).
            for c in MessageCitation.objects.filter(message=message).order_by(
                "answer_start"
            ):
                region = (c.source_offset_start, c.source_offset_end)
                mine = c.document_id == own
                citations.append(
                    {
                        "relevance": c.relevance,
                        "ref": c.ref_label,
                        "start": c.source_offset_start,
                        "rule": c.relevance_reason[:120],
                        "quote": (c.quoted_text or "")[:240],
                        "verified": bool(c.verified),
                        "own_document": mine,
                        "holds": mine and holds(spans, region),
                        "overlaps": mine and overlaps(spans, region),
                    }
                )
            records.append(
                {
                    "split": ask.contract.split,
                    "contract": ask.contract.title,
                    "key": ask.key,
                    "question": ask.question,
                    "answerable": ask.answerable,
                    "failed": message.status == "failed",
                    "not_found": bool((message.payload or {}).get("not_found")),
                    "first_line": (message.content or message.error).split("\n")[0][
                        :200
                    ],
                    "seconds": seconds,
                    "tokens": (message.prompt_tokens or 0)
                    + (message.completion_tokens or 0),
                    "citations": citations,
                }
            )
    return records


def overlaps(spans: list[tuple[int, int]], region: tuple[int, int]) -> bool:
    a, b = region
    return any(min(e, b) > max(s, a) for s, e in spans)


def answer_figures(records: list[dict]) -> dict:
    """The answer row of `manage.py evaluate`: see bench/evaluate.py."""
    answerable = [r for r in records if r["answerable"]]
    absent = [r for r in records if not r["answerable"]]
    verified = [c for r in records for c in r["citations"] if c["verified"]]
    marked = [c for r in records for c in r["citations"] if c["relevance"] == "answers"]
    answered = [r for r in records if not r["not_found"] and not r["failed"]]

    def share(rows, test) -> dict:
        return {
            "share": _share(sum(bool(test(x)) for x in rows), len(rows)),
            "n": len(rows),
        }

    return {
        "questions": len(records),
        "right_document": share(verified, lambda c: c["own_document"]),
        "cites_clause": share(
            answerable,
            lambda r: any(c["verified"] and c["overlaps"] for c in r["citations"]),
        ),
        "presented_as_answer": share(
            answerable,
            lambda r: any(
                c["verified"] and c["overlaps"] and c["relevance"] == "answers"
                for c in r["citations"]
            ),
        ),
        "false_not_found": share(answerable, lambda r: r["not_found"]),
        "not_found_when_absent": share(absent, lambda r: r["not_found"]),
        "answers_mark_holds_clause": share(marked, lambda c: c["overlaps"]),
        "answers_marked": share(
            answered,
            lambda r: any(c["relevance"] == "answers" for c in r["citations"]),
        ),
        "failed": sum(r["failed"] for r in records),
        "tokens_per_answer": round(sum(r["tokens"] for r in records) / len(records), 1)
        if records
        else None,
        "seconds_per_answer": round(
            sum(r["seconds"] for r in records) / len(records), 3
        )
        if records
        else None,
    }


def part_chat(tenant, contracts, questions: dict) -> tuple[dict, list[dict]]:
    """Whole offline turns on named questions, about clauses the contract has
    and clauses it lacks. Returns the figures and every citation seen (for
    part_relevance)."""
    asks = [
        Ask(contract, category, question, with_gold)
        for with_gold in (True, False)
        for contract, category, question in _named_questions(
            contracts, questions, with_gold=with_gold
        )
    ]
    records = ask_all(tenant, asks)
    stats: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    rows: list[dict] = []
    for r in records:
        s = stats[r["split"]]
        verified = [c for c in r["citations"] if c["verified"]]
        s["verified_from_contract"][0] += sum(c["own_document"] for c in verified)
        s["verified_from_contract"][1] += len(verified)
        if r["answerable"]:
            s["answer_holds_clause"][0] += any(c["holds"] for c in verified)
            s["answer_holds_clause"][1] += 1
            s["not_found_when_answerable"][0] += r["not_found"]
            s["not_found_when_answerable"][1] += 1
        else:
            s["not_found_when_lacking"][0] += r["not_found"]
            s["not_found_when_lacking"][1] += 1
        rows += [{"split": r["split"], **c} for c in r["citations"]]
    result: dict[str, Any] = {
        split: {key: _share(*pair) for key, pair in values.items()}
        for split, values in stats.items()
    }
    result["counts"] = {
        split: {key: pair[1] for key, pair in values.items()}
        for split, values in stats.items()
    }
    ordered = sorted(r["seconds"] * 1000 for r in records)
    result["ask_p95_ms"] = (
        round(ordered[int(0.95 * (len(ordered) - 1))], 1) if ordered else None
    )
    print("chat (offline responder, named questions):")
    for split, values in stats.items():
        line = "  ".join(
            f"{k} {_share(*v):.1%} (n={v[1]})" for k, v in values.items() if v[1]
        )
        print(f"  {split:<8}{line}")
    return result, rows


def part_relevance(rows: list[dict]) -> dict:
    """Of the citations marked answers / related / off-topic, the share that
    hold the expert's clause, per split."""
    table: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in rows:
        label = row["relevance"] or "unrated"
        table[row["split"]][label][0] += row["holds"]
        table[row["split"]][label][1] += 1
    result = {
        split: {
            label: {"holds_clause": _share(*pair), "n": pair[1]}
            for label, pair in labels.items()
        }
        for split, labels in table.items()
    }
    print("relevance: share of citations holding the expert's clause, by mark")
    for split, labels in result.items():
        print(
            f"  {split:<8}"
            + "  ".join(
                f"{k} {v['holds_clause']:.1%} (n={v['n']})" for k, v in labels.items()
            )
        )
    return result


def run_parts(tenant, contracts, questions: dict) -> dict:
    chat, rows = part_chat(tenant, contracts, questions)
    return {
        "product_scoped": part_product_scoped(tenant, contracts, questions),
        "named": part_named(tenant, contracts, questions),
        "chat": chat,
        "relevance": part_relevance(rows),
    }
