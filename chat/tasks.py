"""Chat tasks: thin shells over chat.asking (see its docstring for the
once-only contract). Acked late: a worker lost mid-answer gets the message
back, and the one-to-one answer keeps a second delivery from answering twice."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def answer_question(question_id: str) -> None:
    from chat.asking import question_answer

    question_answer(question_id=question_id)


@shared_task(ignore_result=True)
def sweep_questions() -> int:
    from chat.asking import questions_sweep

    return questions_sweep()
