"""docs/answers.md, written from the tables the answers are decided by.

`python manage.py answers_doc` writes it; a test fails when the file and the
tables disagree, so the page cannot drift from the code.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from chat.naming import NAME_RULES
from citations.marks import RELEVANCE_MARKS
from citations.presentation import BADGE_STATES
from citations.relevance import NEAR_WORDS, RELEVANCE_RULES
from citations.values import QUESTION_RULES

PATH = Path(settings.BASE_DIR) / "docs" / "answers.md"

SCOPE_ORDER = (
    (
        "chosen",
        "documents or a collection chosen for this one question (the REST "
        "ask's `document_ids` / `collection_id`, “Search all documents instead”)",
    ),
    ("mentioned", "documents mentioned with `@Title` in the question"),
    (
        "session",
        "documents picked for the chat (the picker; “Ask about this document”)",
    ),
    (
        "named",
        "documents the question names (the naming rules below), within the "
        "chat's collection if it has one",
    ),
    ("collection", "the chat's collection"),
    ("all", "every ready document of the workspace"),
)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _model_reading() -> list[str]:
    from chat import reading

    kinds = ", ".join(f"`{k}`" for k in sorted(reading.READ_KINDS))
    return [
        "",
        "## What a model reads (`chat/reading.py`, `chat/structured.py`)",
        "",
        "With a model configured (`LLM_BASE_URL`), the model decides meaning. "
        f"A question scoped to documents ({kinds}) gives it the documents "
        "whole when they fit the budget, one section (a page or a run of "
        "pages, else about 6,000 characters of paragraphs) a source with its "
        "Location; over budget, the sections holding what a retrieval within "
        "the documents ranks best, whole, and the answer says which: "
        '\'Read pages 1-3, 7 of "X" (the document is longer than the '
        "model's budget).' Other questions get as many retrieved chunks as "
        f"the budget holds (at least `RETRIEVAL_TOP_K`, at most {reading.MAX_CHUNKS}).",
        "",
        "The budget: `LLM_CONTEXT_TOKENS` less the answer's tokens "
        f"(`LLM_MAX_TOKENS`, else {reading.ANSWER_MAX_TOKENS}), the instructions, "
        "history and question, and a margin of "
        f"{reading.MARGIN_FRACTION:.0%} (at least {reading.MIN_MARGIN_TOKENS} "
        "tokens); tokens are estimated at 3.5 characters each, on the safe "
        "side, source headers included.",
        "",
        "The model answers in one JSON object: `answer` (the value first), "
        '`citations` (`source`, a verbatim `quote`, `relevance` "answers" or '
        '"related"), `not_found`. The stored answer renders it in the usual '
        'form (the answer, then "The documents say:" and "Related passages:" '
        'with each quote as `"…" (Source: [S3])`). Each citation keeps the '
        "model's own relevance (`relevance_method` `model`): the word rules "
        "below rate only the offline responder's citations; a judge model "
        "(`LLM_JUDGE_MODEL`) may re-rate them (`judge`). Every quote is still "
        "verified, and one that fails stays failed whatever the model says. "
        "`not_found` with quotes is stored as a contradiction for review "
        '(`payload.contradiction`, a banner), never as a plain "not found"; '
        "`payload.searched.reading` says what was read of each document.",
    ]


def answers_markdown() -> str:
    lines = [
        "# How DocuIQ answers",
        "",
        "Generated from the code by `python manage.py answers_doc`; do not edit by hand.",
        "",
        "## What a question searches",
        "",
        "The first that applies decides; the answer's payload says which "
        "(`searched.kind`), and the words that named or mentioned documents "
        "stop counting as search terms.",
        "",
        "| kind | when |",
        "|---|---|",
    ]
    lines += [f"| `{kind}` | {_cell(text)} |" for kind, text in SCOPE_ORDER]
    lines += _model_reading()
    lines += [
        "",
        "## How a question names documents (`chat/naming.py`)",
        "",
        "Tried in order at each word of the question; the first that applies "
        "takes its words. A match names every document holding the key.",
        "",
        "| rule | what it matches | example |",
        "|---|---|---|",
    ]
    for rule in NAME_RULES:
        example = next((q for q, key in rule.examples if key), "")
        lines.append(f"| `{rule.name}` | {_cell(rule.doc)} | {_cell(example)} |")
    lines += [
        "",
        "## What kind of value a question asks for (`citations/values.py`)",
        "",
        "A value is stated in an answer only as read from the quote shown.",
        "",
        "| rule | kind | example |",
        "|---|---|---|",
    ]
    for rule in QUESTION_RULES:
        example = rule.examples[0] if rule.examples else ""
        lines.append(f"| `{rule.name}` | {rule.kind} | {_cell(example)} |")
    lines += [
        "",
        "## Does a passage bear on the question (`citations/relevance.py`)",
        "",
        "Offline, word rules label only what they can show: a passage answers "
        "when it holds every concept of the question (its words, each with the "
        "words contracts use for it; the words naming the searched documents "
        "are none) by two words or more, within "
        f"{NEAR_WORDS} content words, and the value asked for, and is no "
        "heading, title, preamble or signature; it is off-topic only when it "
        "holds none of the concepts; anything between relates. Holding every "
        "word proves no meaning (a definition or a carve-out holds them too): "
        "such a passage is quoted first and shown as related; a citation is "
        'shown as "answers" only where the question asks for a value and the '
        "passage states one of that kind in its role (`value_stated`). Every "
        "offline answer says first that no model read the documents, quotes "
        'its best passages (five at most), and says "not found" only when no '
        "passage searched holds a word of the question. "
        "With a judge model configured, one structured call per answer rates "
        "its citations instead. The first rule that applies decides.",
        "",
        "| rule | what it decides |",
        "|---|---|",
    ]
    lines += [f"| `{r.name}` | {_cell(r.doc)} |" for r in RELEVANCE_RULES]
    lines += [
        "",
        "## How a citation looks",
        "",
        "Verification badge (`citations.presentation.BADGE_STATES`), strongest first:",
        "",
        "| state | label | icon | colour |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{s.key}` | {_cell(s.label.format(found_in='S2', differences=''))} "
        f"| {s.icon} | {s.colour} |"
        for s in BADGE_STATES
    ]
    lines += [
        "",
        "Relevance mark beside it (`citations.marks.RELEVANCE_MARKS`); a citation "
        "whose mark does not support the answer is listed under “Retrieved, does "
        "not answer the question” and never numbered first:",
        "",
        "| mark | label | supports the answer |",
        "|---|---|---|",
    ]
    lines += [
        f"| `{m.key}` | {_cell(m.label)} | {'yes' if m.supporting else 'no'} |"
        for m in RELEVANCE_MARKS
    ]
    return "\n".join(lines) + "\n"


def write(path: Path = PATH) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(answers_markdown(), encoding="utf-8")
    return path
