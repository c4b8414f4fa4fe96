"""Answers a lawyer can act on: the contract the question names, citations
rated for relevance, "not found" with what was searched, values read from
the quote, stale citations, and the scope chosen per question (offline
responder, eager Celery)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from accounts.scoping import tenant_scope
from chat.models import Message, MessageSource
from chat.payload import payload_with_verdicts
from chat.scope import scope_for
from chat.selectors import message_view
from chat.services import message_ask, session_create
from citations.marks import citation_mark
from citations.models import MessageCitation
from docuiq.testing.factories import make_document
from ingest.services import Upload, document_upload

pytestmark = pytest.mark.django_db

LIME = (
    "DISTRIBUTOR AGREEMENT. This Distributor Agreement is made by and between Electric City Corp., "
    'a Delaware corporation ("Company") and Electric City of Illinois LLC ("Distributor").\n\n'
    "Termination. Either party may terminate this Agreement for convenience upon ninety (90) days "
    "prior written notice to the other party.\n\n"
    "Governing Law. This Agreement shall be governed by the laws of the State of Illinois."
)
ANIXA = (
    'COLLABORATION AGREEMENT. This Agreement is made between Anixa Biosciences, Inc. ("Anixa") and '
    'OntoChem GmbH ("OntoChem").\n\n'
    "Termination. Either party may terminate this Agreement for convenience upon thirty (30) days "
    "prior written notice.\n\n"
    "Confidentiality. Each party shall keep the other party's information confidential."
)
HANDBOOK = (
    "Employee handbook. Staff may work from home two days a week. The office closes at 6 pm. "
    "Termination of employment requires a written letter."
)


@pytest.fixture
def library(tenant_a):
    return {
        "lime": make_document(
            tenant_a, LIME, title="LIMEENERGYCO_1999-EX-10-DISTRIBUTOR AGREEMENT.pdf"
        ),
        "anixa": make_document(
            tenant_a,
            ANIXA,
            title="ANIXABIOSCIENCESINC_2020-EX-10.1-COLLABORATION AGREEMENT.pdf",
        ),
        "handbook": make_document(tenant_a, HANDBOOK, title="Handbook"),
    }


@pytest.fixture
def ask(tenant_a, alice, django_capture_on_commit_callbacks):
    def run(question: str, *, choice=None, **session_kwargs) -> Message:
        with tenant_scope(tenant_a):
            session = session_create(tenant=tenant_a, user=alice, **session_kwargs)
            with django_capture_on_commit_callbacks(execute=True):
                message = message_ask(session=session, question=question, choice=choice)
            return Message.objects.get(pk=message.pk)

    return run


def _cited_titles(message) -> set[str]:
    with tenant_scope(message.tenant):
        return {
            c.document_name for c in MessageCitation.objects.filter(message=message)
        }


def test_a_question_naming_a_contract_is_answered_from_it(library, ask):
    message = ask(
        "Can either party terminate the Lime Energy distributor agreement for convenience?"
    )
    assert message.payload["searched"]["kind"] == "named"
    assert [d["title"] for d in message.payload["searched"]["documents"]] == [
        library["lime"].title
    ]
    # The name stopped counting as a search term.
    assert "lime" not in message.payload["searched"]["terms"]
    assert _cited_titles(message) == {library["lime"].title}
    with tenant_scope(message.tenant):
        sources = MessageSource.objects.filter(message=message)
        assert {s.document_id for s in sources} == {library["lime"].pk}
        view = message_view(message)
    assert view.narrowed and view.searched_titles == [library["lime"].title]
    # A party's name works as well as the title's.
    by_party = ask("What notice does Anixa need to give to end the collaboration?")
    assert _cited_titles(by_party) == {library["anixa"].title}


def test_two_named_contracts_are_both_searched(library, ask):
    message = ask(
        "Compare termination for convenience in the Anixa and the Lime Energy agreements"
    )
    titles = {d["title"] for d in message.payload["searched"]["documents"]}
    assert titles == {library["lime"].title, library["anixa"].title}
    assert _cited_titles(message) == titles


def test_a_value_is_stated_only_as_read_from_the_quote(library, ask):
    message = ask(
        "What is the notice period to terminate the Lime Energy agreement for convenience?"
    )
    # The first line says no model read the documents; a period has no role
    # reader (whose period, for what), so it is quoted first, not stated
    # and not marked as the answer (issue 35); a governing law is.
    assert message.content.startswith("No model is configured, so none has read")
    assert "states" not in message.content.split("\n\n")[0]
    with tenant_scope(message.tenant):
        first = MessageCitation.objects.filter(message=message).order_by(
            "answer_start"
        )[0]
    assert "ninety (90) days" in first.quoted_text
    assert first.verification_status == "verified" and first.relevance == "related"
    law = ask("Which law governs the Lime Energy agreement?")
    assert "the first states Illinois, read them to judge:" in law.content
    with tenant_scope(law.tenant):
        first = MessageCitation.objects.filter(message=law).order_by("answer_start")[0]
    assert "State of Illinois" in first.quoted_text and first.relevance == "answers"


def test_offline_never_marks_a_yes_no_answer_it_cannot_prove(library, ask):
    """The termination clause holds every word of a yes/no question: offline
    quotes it first and says it holds every word, and marks it "related":
    words prove no meaning (issue 35). The lead claims nothing else."""
    message = ask(
        "Can either party terminate the Lime Energy distributor agreement for convenience?"
    )
    lead = message.content.split("\n\n")[0]
    assert lead.startswith("No model is configured, so none has read")
    assert "every word of your question" in lead and "states" not in lead
    with tenant_scope(message.tenant):
        cited = list(
            MessageCitation.objects.filter(message=message).order_by("answer_start")
        )
    assert cited and "for convenience" in cited[0].quoted_text
    assert {c.relevance for c in cited} <= {"related", "off_topic"}
    # Nor does its mark claim the clause does not answer: words prove only
    # that it holds the question's words.
    mark = citation_mark(cited[0])
    assert mark.key == "matched" and "does not answer" not in mark.label


def test_a_question_the_documents_cannot_answer_says_not_found_and_what_was_searched(
    library, ask
):
    message = ask("What is the cap on liquidated damages for late delivery?")
    assert message.payload["not_found"] is True
    assert "Searched: all your documents for:" in message.content
    assert "liquidat" in message.content or "damag" in message.content
    assert not _cited_titles(message)


def test_a_question_about_what_no_document_mentions_is_not_found(library, ask):
    """No searched document writes "Singapore" nor "embassy": not found."""
    message = ask("Where is the Singapore embassy?")
    assert message.payload["not_found"] is True, message.content
    assert not _cited_titles(message)
    assert "singapore, embassy" in message.content


def test_no_not_found_while_a_passage_holds_a_word_of_the_question(library, ask):
    """'office' is in the handbook, 'Singapore' nowhere: word rules cannot
    prove the answer is absent, so the passage is shown, said to match only
    some of the question's words (issue 35: no false "not found")."""
    message = ask("Where is the Singapore office?")
    assert message.payload.get("not_found") is not True
    assert "match some of your question's words" in message.content.split("\n")[0]
    assert _cited_titles(message) == {library["handbook"].title}
    answered = ask("When does the office close?")
    assert answered.payload.get("not_found") is not True
    assert _cited_titles(answered) == {library["handbook"].title}


def test_citations_are_rated_and_off_topic_ones_are_listed_apart(library, ask):
    message = ask("What does the handbook say about working from home and termination?")
    with tenant_scope(message.tenant):
        citations = list(MessageCitation.objects.filter(message=message))
        assert citations and all(c.relevance for c in citations)
        assert all(c.relevance_method == "offline" for c in citations)
        view = message_view(message)
    # Supporting sources come first and are numbered from 1.
    numbers = [b.number for b in view.footnotes + view.not_answering]
    assert numbers == sorted(numbers) and (not numbers or numbers[0] == 1)
    for badge in view.not_answering:
        assert not badge.item.supporting


def test_the_chosen_scope_overrides_the_name_and_search_all_overrides_everything(
    library, ask, tenant_a, alice
):
    chosen = ask(
        "Can the Lime Energy agreement be terminated for convenience?",
        choice={"document_ids": [str(library["anixa"].pk)]},
    )
    assert chosen.payload["searched"]["kind"] == "chosen"
    assert _cited_titles(chosen) <= {library["anixa"].title}
    everything = ask(
        "Can the Lime Energy agreement be terminated for convenience?",
        choice={"all": True},
    )
    assert everything.payload["searched"]["kind"] == "all"


def test_scope_precedence_mention_then_session_then_name(library, tenant_a, alice):
    with tenant_scope(tenant_a):
        session = session_create(
            tenant=tenant_a, user=alice, documents=[library["handbook"]]
        )
        mentioned = scope_for(
            session=session,
            question=f"@{library['anixa'].title} can Lime Energy terminate?",
        )
        assert mentioned.kind == "mentioned" and mentioned.documents == [
            library["anixa"]
        ]
        assert library["anixa"].title not in mentioned.search_text
        picked = scope_for(session=session, question="Can Lime Energy terminate?")
        assert picked.kind == "session" and picked.documents == [library["handbook"]]
        bare = session_create(tenant=tenant_a, user=alice)
        named = scope_for(session=bare, question="Can Lime Energy terminate?")
        assert named.kind == "named" and named.named_by == ["squashed_name"]
        assert scope_for(session=bare, question="Can anyone terminate?").kind == "all"


def test_another_tenants_documents_are_never_named(library, tenant_b, charlie):
    make_document(
        tenant_b,
        LIME.replace("Electric City", "Falcon Power"),
        title="FALCONPOWER_2001.pdf",
    )
    with tenant_scope(tenant_b):
        session = session_create(tenant=tenant_b, user=charlie)
        scope = scope_for(
            session=session, question="Can the Lime Energy agreement be terminated?"
        )
    assert scope.kind == "all" and scope.documents == []


def test_a_new_document_is_named_without_a_restart(library, tenant_a, alice):
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        assert (
            scope_for(session=session, question="Does the Pareteum deal renew?").kind
            == "all"
        )
    make_document(
        tenant_a,
        'RESELLER AGREEMENT between iPass Inc. ("iPass") and Pareteum Corporation ("Channel Partner").',
        title="Reseller.pdf",
    )
    with tenant_scope(tenant_a):
        assert (
            scope_for(session=session, question="Does the Pareteum deal renew?").kind
            == "named"
        )


def test_a_citation_that_fails_on_a_new_revision_is_stale_and_the_answer_says_so(
    ask, tenant_a, django_capture_on_commit_callbacks
):
    def upload(text: str) -> None:
        with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
            document_upload(
                tenant=tenant_a,
                upload=Upload(filename="lime.txt", stream=io.BytesIO(text.encode())),
            )

    upload(LIME)
    message = ask(
        "What is the notice period to terminate the agreement for convenience?"
    )
    with tenant_scope(tenant_a):
        first = MessageCitation.objects.filter(message=message).order_by(
            "answer_start"
        )[0]
        assert first.verification_status == "verified" and not first.is_stale
    upload(LIME.replace("ninety (90)", "sixty (60)"))  # a new revision: re-verified
    with tenant_scope(tenant_a):
        first.refresh_from_db()
        assert first.verification_status == "failed" and first.is_stale
        view = message_view(Message.objects.get(pk=message.pk))
        assert view.stale
        assert view.footnotes[0].item.badge.key == "stale"
    upload(LIME + "\n\nSchedule A. Products.")  # the clause is back as it was
    with tenant_scope(tenant_a):
        first.refresh_from_db()
        assert first.verification_status == "verified" and not first.is_stale


def test_ask_command_limits_to_the_documents_given(library, tenant_a, capsys):
    call_command(
        "ask",
        "Can either party terminate for convenience?",
        "--tenant",
        tenant_a.slug,
        "--document",
        library["anixa"].title,
    )
    out = capsys.readouterr().out
    assert library["anixa"].title in out and library["lime"].title not in out


# ------------------------------------------------------------ with a model


def test_a_judge_model_rates_the_citations_in_one_call_and_uncited_sentences_show(
    library, ask, llm, settings
):
    from docuiq.testing.llm_server import Reply

    settings.LLM_JUDGE_MODEL = "scripted-judge"
    llm.script(
        Reply.chat_answer(
            "The agreement can be ended early. "
            "The other party must also be paid a break fee of ten percent.",
            (
                "S1",
                "Either party may terminate this Agreement for convenience upon "
                "ninety (90) days prior written notice to the other party.",
                "related",
            ),
        ),
        Reply.object(
            {
                "ratings": [
                    {"id": "P1", "relevance": "answers", "reason": "It is the clause."}
                ]
            }
        ),
    )
    message = ask("Can the Lime Energy agreement be terminated for convenience?")
    relevance_calls = [
        r for r in llm.chat_requests if "citation_relevance" in json.dumps(r.body)
    ]
    assert len(relevance_calls) == 1
    with tenant_scope(message.tenant):
        citation = MessageCitation.objects.get(message=message)
        assert citation.verification_status == "verified"
        assert (citation.relevance, citation.relevance_method) == ("answers", "judge")
        assert citation.relevance_reason == "It is the clause."
        view = message_view(Message.objects.get(pk=message.pk))
        payload = payload_with_verdicts(Message.objects.get(pk=message.pk))
    statuses = [m["status"] for m in payload["coverage"]]
    # The model marked neither sentence with a source: both show uncited,
    # whatever the quotes below them (never backed by a quote given for another).
    assert statuses == ["unsupported", "unsupported", "supported"]
    assert view.uncited == 2
    assert any(
        getattr(s, "uncited", False) and "break fee" in s.text for s in view.segments
    )


def test_a_judge_that_answers_garbage_keeps_the_models_own_rating(
    library, ask, llm, settings
):
    from docuiq.testing.llm_server import Reply

    settings.LLM_JUDGE_MODEL = "scripted-judge"
    llm.script(
        Reply.chat_answer(
            "Yes [S1].",
            (
                "S1",
                "Either party may terminate this Agreement for convenience upon "
                "ninety (90) days prior written notice to the other party.",
            ),
        ),
        Reply.garbage(),
    )
    message = ask("Can the Lime Energy agreement be terminated for convenience?")
    with tenant_scope(message.tenant):
        citation = MessageCitation.objects.get(message=message)
    assert citation.relevance == "answers" and citation.relevance_method == "model"


def test_the_picker_finds_documents_by_title_or_file_name(library, tenant_a):
    from chat.selectors import document_titles

    make_document(tenant_a, "Rent is due monthly.", title="Office lease")
    with tenant_scope(tenant_a):
        by_title = document_titles(tenant=tenant_a, query="lease")
        by_file = document_titles(tenant=tenant_a, query="lease.txt")
    assert [d.title for d in by_title] == ["Office lease"]
    assert [d.title for d in by_file] == [
        "Office lease"
    ]  # make_document's file: <title>.txt
