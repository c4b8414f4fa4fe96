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


def part_chat(tenant, contracts, questions: dict) -> tuple[dict, list[dict]]:
    """Whole offline turns on named questions, about clauses the contract has
    and clauses it lacks. Returns the figures and every citation seen (for
    part_relevance)."""
    from accounts.scoping import tenant_scope
    from chat.services import message_ask
    from citations.models import MessageCitation
    from citations.services import message_citations_verify

    rows: list[dict] = []
    stats: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    times: list[float] = []
    with tenant_scope(tenant):
        session = _session(tenant)
        for with_gold in (True, False):
            for contract, category, question in _named_questions(
                contracts, questions, with_gold=with_gold
            ):
                t0 = time.perf_counter()
                message = message_ask(session=session, question=question)
                times.append((time.perf_counter() - t0) * 1000)
                message_citations_verify(message_id=message.pk)
                citations = list(MessageCitation.objects.filter(message=message))
                verified = [c for c in citations if c.verified]
                spans = contract.gold.get(category, [])
                not_found = bool((message.payload or {}).get("not_found"))
                s = stats[contract.split]
                s["verified_from_contract"][0] += sum(
                    c.document_id == contract.document.pk for c in verified
                )
                s["verified_from_contract"][1] += len(verified)
                if with_gold:
                    s["answer_holds_clause"][0] += any(
                        holds(spans, (c.source_offset_start, c.source_offset_end))
                        for c in verified
                        if c.document_id == contract.document.pk
                    )
                    s["answer_holds_clause"][1] += 1
                    s["not_found_when_answerable"][0] += not_found
                    s["not_found_when_answerable"][1] += 1
                else:
                    s["not_found_when_lacking"][0] += not_found
                    s["not_found_when_lacking"][1] += 1
                for c in citations:
                    rows.append(
                        {
                            "split": contract.split,
                            "relevance": c.relevance,
                            "verified": c.verified,
                            "holds": bool(spans)
                            and c.document_id == contract.document.pk
                            and holds(
                                spans, (c.source_offset_start, c.source_offset_end)
                            ),
                        }
                    )
    result: dict[str, Any] = {
        split: {key: _share(*pair) for key, pair in values.items()}
        for split, values in stats.items()
    }
    result["counts"] = {
        split: {key: pair[1] for key, pair in values.items()}
        for split, values in stats.items()
    }
    ordered = sorted(times)
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
