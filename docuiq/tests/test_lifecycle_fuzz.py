"""FUZ-04: a hypothesis state machine drives the whole life of documents and
their citations for two tenants (upload -> ingest -> ask -> cite -> verify
-> revise -> re-verify -> delete), in any order. After every step: no row
crosses a tenant (TEN-02), every citation hangs on its own tenant's message
and document revision, and every verified citation's offsets slice its
revision's text to its source text (FUZ-02's invariant, stored)."""

from __future__ import annotations

import io
import itertools

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from accounts.scoping import tenant_scope, unscoped

CLAUSES = [
    "Invoices are payable within thirty (30) days of receipt.",
    "Either party may terminate this Agreement upon ninety (90) days notice.",
    "The Supplier shall deliver the goods within ten (10) business days.",
    "This Agreement is governed by the laws of New York.",
    "Late payments bear interest at 1.5% per month.",
]
QUESTIONS = [
    "When are invoices payable?",
    "How can the agreement be terminated?",
    "When shall the goods be delivered?",
    "Which law governs?",
]
_serial = itertools.count()


class DocumentLife(RuleBasedStateMachine):
    documents = Bundle("documents")

    @initialize()
    def tenants(self):
        from django.contrib.auth import get_user_model

        from accounts.services import membership_add, tenant_create

        n = next(_serial)
        self.tenants = [tenant_create(slug=f"life-{n}-{side}") for side in "ab"]
        self.users = []
        for tenant in self.tenants:
            user = get_user_model().objects.create_user(username=f"{tenant.slug}-user")
            membership_add(user=user, tenant=tenant)
            self.users.append(user)

    @rule(
        target=documents,
        side=st.integers(0, 1),
        clauses=st.lists(st.sampled_from(CLAUSES), min_size=1, max_size=3),
    )
    def upload(self, side, clauses):
        from ingest.services import Upload, document_process, document_upload

        tenant = self.tenants[side]
        name = f"contract-{next(_serial)}.txt"
        with tenant_scope(tenant):
            document = document_upload(
                tenant=tenant,
                upload=Upload(
                    filename=name, stream=io.BytesIO(" ".join(clauses).encode())
                ),
            )
        document_process(document_id=document.pk)  # the task, as a worker runs it
        return (side, document.pk, name)

    @rule(side=st.integers(0, 1), question=st.sampled_from(QUESTIONS))
    def ask(self, side, question):
        from chat.services import message_ask, session_create
        from citations.services import message_citations_verify

        tenant = self.tenants[side]
        with tenant_scope(tenant):
            session = session_create(tenant=tenant, user=self.users[side])
            answer = message_ask(session=session, question=question)
        message_citations_verify(message_id=answer.pk)

    @rule(
        document=documents,
        clauses=st.lists(st.sampled_from(CLAUSES), min_size=1, max_size=3),
    )
    def revise(self, document, clauses):
        from citations.services import document_citations_reverify
        from ingest.services import Upload, document_process, document_upload

        side, document_id, name = document
        tenant = self.tenants[side]
        text = "Revised. " + " ".join(reversed(clauses))
        with tenant_scope(tenant):
            revised = document_upload(
                tenant=tenant,
                upload=Upload(filename=name, stream=io.BytesIO(text.encode())),
            )
        document_process(document_id=revised.pk)
        document_citations_reverify(document_id=document_id)

    @rule(document=documents)
    def delete(self, document):
        from ingest.models import Document
        from ingest.services import document_soft_delete

        side, document_id, _ = document
        with tenant_scope(self.tenants[side]):
            document_soft_delete(document=Document.objects.get(pk=document_id))

    @invariant()
    def nothing_crosses_a_tenant_and_offsets_hold(self):
        if not hasattr(self, "tenants"):
            return
        from chat.models import Message, MessageSource
        from citations.models import MessageCitation

        with unscoped():
            for citation in MessageCitation.objects.filter(
                tenant__in=self.tenants
            ).select_related("message"):
                assert citation.message.tenant_id == citation.tenant_id
                if citation.document_id is not None:
                    from ingest.models import Document, DocumentRevision

                    document = Document.objects.get(pk=citation.document_id)
                    assert document.tenant_id == citation.tenant_id
                    revision = DocumentRevision.objects.get(pk=citation.revision_id)
                    assert revision.document_id == citation.document_id
                    if citation.verification_status == "verified":
                        content = revision.normalized_content
                        start, end = (
                            citation.source_offset_start,
                            citation.source_offset_end,
                        )
                        assert 0 <= start < end <= len(content)
                        assert content[start:end] == citation.source_text
            for source in MessageSource.objects.filter(
                message__tenant__in=self.tenants
            ):
                assert source.document.tenant_id == source.message.tenant_id
            for message in Message.objects.filter(tenant__in=self.tenants).exclude(
                session=None
            ):
                assert message.session.tenant_id == message.tenant_id


@pytest.mark.django_db
@pytest.mark.slow
def test_fuz04_the_life_of_documents_keeps_every_invariant():
    run_state_machine_as_test(
        DocumentLife,
        settings=settings(
            max_examples=6,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
