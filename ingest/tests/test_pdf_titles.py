"""A PDF's title (issue 26 item 4): its metadata Title unless a program or a
file name wrote it, else page 1's first heading (past the lines filings
print above it), else the file name. The page-1 openings below are CUAD
contracts' own first lines (corpus/cuad/contracts_pdf), as PDFium reads them."""

from __future__ import annotations

import pytest

from docuiq.testing import pdfgen
from ingest.extractors.titles import (
    HEADING_REJECTS,
    METADATA_REJECTS,
    first_heading,
    heading_rejected_by,
    metadata_title_rejected_by,
    pdf_title,
)


@pytest.mark.parametrize(
    ("rule", "example"),
    [(r.name, e) for r in METADATA_REJECTS for e in r.examples],
)
def test_each_metadata_rule_rejects_its_examples(rule, example):
    assert metadata_title_rejected_by(example) == rule


@pytest.mark.parametrize(
    ("rule", "example"),
    [(r.name, e) for r in HEADING_REJECTS for e in r.examples],
)
def test_each_heading_rule_rejects_its_examples(rule, example):
    (named,) = [r for r in HEADING_REJECTS if r.name == rule]
    assert named.rejects(example)
    assert heading_rejected_by(example)


CUAD_OPENINGS = [
    (
        "EXHIBIT 4.25\nINFORMATION IN THIS EXHIBIT IDENTIFIED BY [ * * * ] IS CONFIDENTIAL AND "
        "HAS BEEN EXCLUDED BECAUSE IT IS BOTH (I) NOT\nMATERIAL AND (II) WOULD LIKELY CAUSE "
        "COMPETITIVE HARM TO THE REGISTRANT IF PUBLICLY DISCLOSED.\nSERVICES AGREEMENT\n"
        "This Services Agreement (this “Agreement”) is entered into on October 1, 2019",
        "SERVICES AGREEMENT",
    ),
    (
        "Exhibit 10.1\nRedactions with respect to certain portions hereof denoted with “***”\n"
        "COLLABORATION AGREEMENT\nThis Collaboration Agreement (the “Agreement”) is made",
        "COLLABORATION AGREEMENT",
    ),
    (
        "Execution Version\nCertain identified information has been excluded from the exhibit "
        "because it is both (i) not material and (ii) would likely cause\ncompetitive harm to "
        "the Company, if publicly disclosed. Double asterisks denote omissions.\n"
        "DEVELOPMENT AGREEMENT\nThis Development Agreement",
        "DEVELOPMENT AGREEMENT",
    ),
    (
        "Exhibit 10.5\nSTRATEGIC ALLIANCE AGREEMENT\n----------------------------\n"
        'THIS STRATEGIC ALLIANCE AGREEMENT (this "Agreement") is made as of 31 December,',
        "STRATEGIC ALLIANCE AGREEMENT",
    ),
    (
        "Promotion Agreement Between\nPageMaster Corporation and Go Call, Inc.\nAGREEMENT\n"
        "---------\nThis Promotion Agreement",
        "Promotion Agreement Between PageMaster Corporation and Go Call, Inc.",
    ),
    (
        "EXHIBIT 10.1\nELECTRONIC JOURNAL SOFT WARE DEVELOPMENT,\nHOSTING AND MANAGEMENT "
        "AGREEMENT\nThis AGREEMENT is made the 20 March day of 1998",
        "ELECTRONIC JOURNAL SOFT WARE DEVELOPMENT, HOSTING AND MANAGEMENT AGREEMENT",
    ),
    (
        "Exhibit 10.28\nExecution Version\nOUTSOURCING AGREEMENT\nThis OUTSOURCING AGREEMENT",
        "OUTSOURCING AGREEMENT",
    ),
    (
        "EXHIBIT 10.2\nEXECUTION VERSION\nNON-COMPETITION AND NON-SOLICITATION AGREEMENT\n"
        "THIS NON-COMPETITION AND NON-SOLICITATION AGREEMENT (this “Agreement”), dated",
        "NON-COMPETITION AND NON-SOLICITATION AGREEMENT",
    ),
    (
        "Schedule 13 G\nCUSIP No. 30734W208\nEXHIBIT 1\nJOINT FILING STATEMENT\n"
        "PURSUANT TO RULE 13d-1(k)",
        "JOINT FILING STATEMENT",
    ),
    (
        "Exhibit 4.5\nSUPPLY AGREEMENT\nbetween\nPROFOUND MEDICAL INC.\nand",
        "SUPPLY AGREEMENT",
    ),
]


@pytest.mark.parametrize(("page", "title"), CUAD_OPENINGS)
def test_the_first_heading_of_a_contracts_first_page(page, title):
    assert first_heading(page) == title


def test_the_order_metadata_then_heading_then_file_name():
    page = "Exhibit 10.1\nMASTER SUPPLY AGREEMENT\nThis Agreement is made"
    assert pdf_title("Master Services Agreement", page, "x.pdf") == (
        "Master Services Agreement",
        "metadata",
    )
    assert pdf_title("Microsoft Word - msa_v7.docx", page, "x.pdf") == (
        "Master Supply Agreement",
        "heading",
    )
    assert pdf_title(
        "", "Body text.\nMore body text follows here.", "contract.pdf"
    ) == (
        "contract",
        "filename",
    )


@pytest.mark.django_db
def test_an_uploaded_pdf_is_titled_by_its_heading_and_keeps_its_file_name(
    tmp_path, tenant_a, django_capture_on_commit_callbacks
):
    from accounts.scoping import tenant_scope
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    path = pdfgen.text_pages_pdf(
        tmp_path / "ENTRUSTINC_07_24_1998-EX-10.5.pdf",
        [
            "Exhibit 10.5\nSTRATEGIC ALLIANCE AGREEMENT\nThis Agreement is made as of 1998."
        ],
    )
    with django_capture_on_commit_callbacks(execute=True), path.open("rb") as f:
        document = document_upload(
            tenant=tenant_a, upload=Upload(filename=path.name, stream=f)
        )
    with tenant_scope(tenant_a):
        document = Document.objects.select_related("file").get(pk=document.pk)
    assert document.title == "Strategic Alliance Agreement"
    assert document.file.filename == "ENTRUSTINC_07_24_1998-EX-10.5.pdf"
    assert document.metadata["title_from"] == "heading"
