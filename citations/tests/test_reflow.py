"""Line breaks in quoted text (issue 26 item 6): the PDF's wrapping reads as a
space, the text's own breaks stay; only the rendering changes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citations.reflow import LINE_RULES, line_break_rule, reflow, reflow_quoted


@pytest.mark.parametrize(
    ("rule", "text", "shown"),
    [(r.name, text, shown) for r in LINE_RULES for text, shown in r.examples],
)
def test_each_rule_decides_its_examples(rule, text, shown):
    assert reflow(text) == shown
    before, _, after = text.partition("\n")
    blank = after.startswith("\n")
    assert line_break_rule(before, after.lstrip("\n"), blank=blank).name == rule


def test_a_quote_from_a_wrapped_pdf_reads_as_one_sentence():
    quote = (
        "Either party may terminate this Agreement for convenience upon ninety\n"
        "(90) days prior written notice to the other\nparty."
    )
    assert reflow(quote) == (
        "Either party may terminate this Agreement for convenience upon ninety "
        "(90) days prior written notice to the other party."
    )


def test_a_list_keeps_its_items():
    quote = "The Licensee shall not:\n(a) sell the Software;\n(b) lease it; or\n(c) sublicense it."
    assert reflow(quote) == quote


def test_only_quotations_in_an_answer_reflow():
    answer = 'Notice is 90 days:\n\n"upon ninety\n(90) days prior written notice" [1]\n- and more'
    assert reflow_quoted(answer) == (
        'Notice is 90 days:\n\n"upon ninety (90) days prior written notice" [1]\n- and more'
    )
    assert reflow_quoted("“a\nb” and\nc") == "“a b” and\nc"


@given(st.text(alphabet=st.sampled_from(list("ab -(1):;.\n\t")), max_size=80))
def test_reflow_changes_only_line_breaks_and_their_spacing(text):
    shown = reflow(text)
    assert shown.replace("\n", "").replace(" ", "").replace("\t", "") == text.replace(
        "\n", ""
    ).replace(" ", "").replace("\t", "")
    assert shown.count("\n") <= text.count("\n")
    assert reflow(shown) == shown  # what stays is what the rules keep


@pytest.mark.django_db
def test_the_panel_and_the_review_table_show_a_wrapped_quote_on_one_line(
    alice_client, tenant_a
):
    from django.urls import reverse

    from citations.tests.review_helpers import make_citation
    from docuiq.testing.factories import make_document

    doc = make_document(
        tenant_a, "Rent. The Tenant shall pay the monthly\nrent on the first day."
    )
    citation = make_citation(
        tenant_a, doc, quote="The Tenant shall pay the monthly\nrent on the first day."
    )
    panel = alice_client.get(
        reverse("citations:detail", args=[citation.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "the monthly rent on the first day." in panel
    table = alice_client.get(reverse("citations:review")).content.decode()
    assert "the monthly rent on the first day." in table
    assert citation.quoted_text.count("\n") == 1  # stored text unchanged
