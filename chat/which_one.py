"""The "which one?" answer (issue 32 item 3): a question that names one
document in words that fit several (chat.scope's `ambiguous` scope) is not
answered from all of them, where the retrieval places would be split and a
quote could come from the other contract. The answer asks which one; the
chat shows a chip per candidate (title, file name, date) that asks the same
question again scoped to it, and the REST payload's `searched.ambiguous`
lists the candidates. Nothing is retrieved and no model is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chat.models import Message

if TYPE_CHECKING:
    from chat.services import Turn


def which_one_text(candidates: list[dict]) -> str:
    names = ", ".join(f"“{c['title']}” ({c['filename']})" for c in candidates[:8])
    more = f" and {len(candidates) - 8} more" if len(candidates) > 8 else ""
    return (
        f"Which one? Your question fits {len(candidates)} documents: {names}{more}. "
        "Choose one and I will answer from it alone."
    )


def which_one_answer(*, turn: Turn) -> Message:
    """Store the assistant's "which one?" message for an ambiguous turn."""
    searched = turn.scope.describe()
    text = which_one_text(searched["ambiguous"])
    return Message.objects.create(
        tenant_id=turn.session.tenant_id,
        session=turn.session,
        role=Message.Role.ASSISTANT,
        reply_to=turn.question,
        content=text,
        model_name="none",
        payload={
            "question": turn.question.content,
            "answer": text,
            "citations": [],
            "all_citations": [],
            "inline_refs": {},
            "model": "none",
            "searched": searched,
            "not_found": False,
            "sentences": [],
        },
    )
