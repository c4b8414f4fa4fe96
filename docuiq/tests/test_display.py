"""Display safety (issue 27 item 6, SEC-07's RTL override): bidirectional
control characters in document text, titles, quotes and answers reach no
page raw; each shows as one visible mark, so lengths and offsets on the page
are unchanged, and the stored text keeps them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from lib.display import BIDI_CONTROLS, MARK, neutralise

CONTROLS = "".join(chr(c.code) for c in BIDI_CONTROLS)
RLO, PDF = "\u202e", "\u202c"
# "pay within 10 days" that reads "syad 01 nihtiw yap" backwards once shown raw.
TEXT = (
    f"Invoices are payable within thirty days. The Supplier shall {RLO}syad 01 "
    f"nihtiw yap{PDF} the fee. Notice is ninety (90) days."
)


@given(st.text(alphabet=st.sampled_from(list(CONTROLS) + list("ab é\u05d0\u200f"))))
def test_neutralise_keeps_the_length_and_only_marks_the_controls(text):
    shown = neutralise(text)
    assert len(shown) == len(text)
    assert not set(shown) & set(CONTROLS)
    for before, after in zip(text, shown, strict=True):
        assert after == (MARK if before in CONTROLS else before)


@pytest.mark.django_db
def test_no_page_shows_a_bidi_control_raw(alice_client, tenant_a, alice):
    from chat.services import message_ask, session_create

    document = make_document(tenant_a, TEXT, title=f"invoice{RLO}fdp.exe")
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        answer = message_ask(session=session, question="When are invoices payable?")
        stored = document.current_revision.normalized_content
    assert RLO in stored and PDF in stored  # the source is kept as it is
    pages = [
        "/documents/",
        f"/documents/{document.pk}/",
        f"/documents/{document.pk}/?at={stored.index(RLO)}&end={stored.index(PDF) + 1}",
        f"/chat/{session.pk}/",
        f"/chat/messages/{answer.pk}/",
        "/review/",
        "/admin/citations/messagecitation/",
    ]
    seen_marks = 0
    for url in pages:
        response = alice_client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert not set(html) & set(CONTROLS), url
        seen_marks += html.count(MARK)
    assert seen_marks >= 4  # the title and the text, marked where they stood


def test_the_page_script_marks_text_it_inserts_from_json():
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "static/js/app.js").read_text()
    assert "shown(JSON.parse(event.data).t)" in script  # the streamed answer
    assert "li.textContent = shown(d.title)" in script  # document suggestions
