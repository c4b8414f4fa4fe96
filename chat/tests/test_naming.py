"""Which documents a question names: rules with examples, parties from a
first page, and the naming words taken out of the search terms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chat.naming import (
    NAME_RULES,
    DocumentNames,
    NameIndex,
    named_documents,
    parties,
)

# First pages written in the way EDGAR contracts open (not copied from any).
LIME = (
    'DISTRIBUTOR AGREEMENT THIS DISTRIBUTOR AGREEMENT (the "Agreement") is made by and '
    'between Electric City Corp., a Delaware corporation ("Company") and Electric City '
    'of Illinois LLC ("Distributor") this 7th day of September, 1999.'
)
ANIXA = (
    'This Collaboration Agreement (the "Agreement") is made as of April 14th, 2020 by and '
    "between Anixa Biosciences, Inc., a Delaware corporation, located at 3150 Almaden "
    'Expressway ("Anixa"), and OntoChem GmbH, a German limited liability company ("OntoChem").'
)
NEXSTAR = (
    'WYZZ, Inc. and WYZZ Licensee, Inc. (collectively "WYZZ") and Nexstar Broadcasting of '
    'Peoria, L.L.C. ("NEXSTAR") hereby enter into this Agreement dated November 28, 2001.'
)
PHOTRONICS = (
    "This OUTSOURCING AGREEMENT is made as of May 16, 2017, by and among Photronics, Inc., a "
    'Connecticut corporation ("Photronics"), Dai Nippon Printing Co., Ltd., a Japanese '
    'corporation ("DNP").'
)
ACME_1 = 'This Supply Agreement is made between Acme Widgets Ltd. ("Supplier") and Beta Foods Inc.'
ACME_2 = 'This Lease is made between Acme Widgets Ltd. ("Tenant") and Gamma Realty LLC.'


@pytest.fixture(scope="module")
def index():
    docs = [
        DocumentNames(
            "lime",
            "LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT.PDF",
            "lime.pdf",
            tuple(parties(LIME)),
        ),
        DocumentNames(
            "anixa",
            "ANIXABIOSCIENCESINC_06_09_2020-EX-10.1-COLLABORATION AGREEMENT.PDF",
            "anixa.pdf",
            tuple(parties(ANIXA)),
        ),
        DocumentNames(
            "nexstar",
            "NEXSTARFINANCEHOLDINGSINC_03_27_2002-EX-10.26-OUTSOURCING AGREEMENT.PDF",
            "",
            tuple(parties(NEXSTAR)),
        ),
        DocumentNames(
            "photronics",
            "PhotronicsInc_20171219_10-QA_EX-10.28_Outsourcing Agreement.pdf",
            "",
            tuple(parties(PHOTRONICS)),
        ),
        DocumentNames(
            "acme1", "Acme supply.pdf", "acme-supply.pdf", tuple(parties(ACME_1))
        ),
        DocumentNames("acme2", "Acme lease.docx", "", tuple(parties(ACME_2))),
        DocumentNames("msa", "Acme Master Services Agreement", "msa-2021.pdf", ()),
        DocumentNames(
            "conformis", "Development Agreement.pdf", "", ("Howmedica Osteonics",)
        ),
        DocumentNames(
            "bravatek",
            "BravatekSolutionsInc_20170418_8-K_EX-10.1_Reseller Agreement.pdf",
            "",
            (),
        ),
    ]
    return NameIndex(docs)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LIME, ["Electric City", "Electric City of Illinois"]),
        (ANIXA, ["Anixa Biosciences", "OntoChem", "Anixa"]),
        (PHOTRONICS, ["Photronics", "Dai Nippon Printing", "DNP"]),
    ],
)
def test_parties_are_the_companies_and_their_short_names_not_roles(text, expected):
    found = parties(text)
    assert found[: len(expected)] == expected
    for role in ("Company", "Distributor", "Agreement", "Delaware", "German"):
        assert role not in found


@pytest.mark.parametrize(
    ("rule", "question", "key"),
    [(r.name, q, k) for r in NAME_RULES for q, k in r.examples],
)
def test_each_rule_decides_its_examples(index, rule, question, key):
    extra = {
        "msa-2021.pdf": "msa",
        "Anixa Biosciences": "anixa",
        "Electric City": "lime",
        "Acme Master Services Agreement": "msa",
        "Lime Energy": "lime",
        "Howmedica": "conformis",
        "Bravatek": "bravatek",
    }
    result = named_documents(question, index)
    if key is None:
        assert rule not in result.rules
        return
    assert result.rules and result.rules[0] == rule, result.rules
    assert extra[key] in result.document_ids
    assert key.lower() not in result.search_text.lower()


def test_a_question_naming_a_contract_searches_it_without_its_name(index):
    result = named_documents(
        "Can either party terminate the Lime Energy distributor agreement for convenience?",
        index,
    )
    assert result.document_ids == ["lime"]
    assert "Lime" not in result.search_text and "Energy" not in result.search_text
    assert "terminate" in result.search_text and "convenience" in result.search_text


def test_two_names_name_both_and_a_shared_party_names_all(index):
    both = named_documents(
        "Compare the Anixa collaboration with the Photronics outsourcing terms", index
    )
    assert set(both.document_ids) == {"anixa", "photronics"}
    shared = named_documents(
        "What do our contracts with Acme Widgets say about insurance?", index
    )
    assert set(shared.document_ids) == {"acme1", "acme2"}


@pytest.mark.parametrize(
    "question",
    [
        "Is there a non-compete in this agreement?",
        "Can either party terminate for convenience?",
        "Which state's law governs the contract?",
        "What is the electric meter's warranty?",
        "Who owns the IP developed under the agreement?",
        "Does the distributor agreement renew?",
    ],
)
def test_questions_that_name_no_document_narrow_nothing(index, question):
    result = named_documents(question, index)
    assert result.document_ids == []
    assert result.search_text == question


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_search_text_keeps_the_questions_other_words_in_order(question):
    index = NameIndex(
        [DocumentNames("lime", "LIMEENERGYCO_1999.pdf", "", ("Electric City",))]
    )
    result = named_documents(question, index)
    words = question.split()
    kept = result.search_text.split()
    it = iter(words)
    # Every kept word is a question word (or a fragment of one), in order.
    assert all(any(k in w for w in it) for k in kept)


def test_a_file_name_keeps_naming_its_document_when_the_title_is_a_heading():
    index = NameIndex(
        [
            DocumentNames(
                "lime",
                "DISTRIBUTOR AGREEMENT",  # the PDF's own heading became the title
                "LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT.PDF",
                (),
            ),
            DocumentNames("other", "SUPPLY AGREEMENT", "supply.pdf", ()),
        ]
    )
    result = named_documents(
        "Is the Lime Energy distributor agreement exclusive?", index
    )
    assert result.document_ids == ["lime"]


@pytest.mark.parametrize("ids", [("b-id", "a-id"), ("a-id", "b-id")])
def test_the_documents_one_naming_fits_come_by_title_whatever_their_ids(ids):
    """Two joint venture agreements: listed by title, not by their ids
    (random UUIDs, so a corpus ingested again listed them otherwise)."""
    index = NameIndex(
        [
            DocumentNames(ids[0], "Joint Venture Agreement — Alder Holdings"),
            DocumentNames(ids[1], "Joint Venture Agreement — Birch Partners"),
        ]
    )
    named = named_documents("What does the joint venture agreement say?", index)
    assert named.document_ids == list(ids)
