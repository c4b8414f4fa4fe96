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


# ------------------------------------------------- issue 32: the kind, not furniture

FURNITURE_OPENINGS = [
    (  # Sonos: a securities-law legend above the heading
        "Securities and Exchange Commission pursuant to Rule 406 of the Securities "
        "Act of 1933, as amended.\n[***] Confidential treatment requested\n"
        "MANUFACTURING AGREEMENT\nThis Manufacturing Agreement is made between "
        "Sonos, Inc. and Hon Hai Precision Industry Co., Ltd.",
        "Sonos, Inc. - Manufacturing Agreement .PDF",
        "Manufacturing Agreement",
        "heading",
    ),
    (  # NETGEAR: the confidential-treatment stamp first
        "CONFIDENTIAL TREATMENT REQUEST\n[LOGO]\nDISTRIBUTOR AGREEMENT\n"
        "This Agreement is made between NETGEAR, Inc. and Ingram Micro Inc.",
        "NETGEAR,INC_04_21_2003-EX-10.16-DISTRIBUTOR AGREEMENT.pdf",
        "Distributor Agreement",
        "heading",
    ),
    (  # a court stamp, an address, then only the preamble names the kind
        "Case 18-10248- MFW Doc 632-1 Filed 04/18/18 Page 2 of 60\nCorporate Address\n"
        "925 West Georgia Street\n"
        'THIS ASSET PURCHASE AGREEMENT (the "Agreement") is entered into between '
        "Acme Holdings, Inc. and Beta Capital LLC.",
        "doc632.pdf",
        "Asset Purchase Agreement",
        "preamble",
    ),
    (  # nothing in the text: the kind an EDGAR file name ends with
        "REDACTED COPY\n[LOGO]\nThe parties agree as follows.",
        "ACME_20190101_8-K_EX-10.1_123_EX-10.1_Reseller Agreement.pdf",
        "Reseller Agreement",
        "filename_kind",
    ),
    (  # nothing at all: the file name
        "[LOGO]\nthe parties agree as follows.",
        "q3-board-pack.pdf",
        "q3-board-pack",
        "filename",
    ),
]


@pytest.mark.parametrize(("opening", "filename", "title", "source"), FURNITURE_OPENINGS)
def test_the_title_names_the_kind_past_page_furniture(opening, filename, title, source):
    from ingest.extractors.titles import document_title

    choice = document_title("", opening, filename)
    assert (choice.title, choice.source) == (title, source)
    for furniture in ("Securities", "CONFIDENTIAL", "LOGO", "Case 18", "Address"):
        assert furniture not in choice.title


def test_two_contracts_of_one_kind_get_their_parties_then_their_filer():
    from ingest.extractors.titles import distinct_title, document_title, title_key

    opening = (
        "JOINT VENTURE AGREEMENT\nThis Joint Venture Agreement is made between "
        "{a}, Inc. and {b}, LLC."
    )
    first = document_title("", opening.format(a="BorrowMoney.com", b="JVLS"), "a.pdf")
    second = document_title("", opening.format(a="MJ Syndicated", b="Bio"), "b.pdf")
    assert first.parties == ("BorrowMoney.com", "JVLS")
    taken = {title_key(distinct_title(first, "a.pdf", set()))}
    assert distinct_title(second, "b.pdf", taken) == (
        "Joint Venture Agreement — MJ Syndicated and Bio"
    )
    taken.add(title_key("Joint Venture Agreement — MJ Syndicated and Bio"))
    again = distinct_title(second, "MJBIOTECH,INC_12_06_2018-EX-99.01-JVA.pdf", taken)
    assert again == "Joint Venture Agreement — MJ Syndicated and Bio (MJBIOTECH, INC)"


@pytest.mark.parametrize(
    ("heading", "cased"),
    [
        ("JOINT VENTURE AGREEMENT", "Joint Venture Agreement"),
        (
            "NON-COMPETITION AND NON-SOLICITATION AGREEMENT",
            "Non-Competition and Non-Solicitation Agreement",
        ),
        ("ODM - SUPPLY AGREEMENT", "ODM - Supply Agreement"),
        ("CONFIDENTIALITY AGREEMENT (“CNDA”)", "Confidentiality Agreement (“CNDA”)"),
        ("Master Services Agreement", "Master Services Agreement"),
    ],
)
def test_capitals_are_set_as_a_lawyer_writes_a_title(heading, cased):
    from ingest.extractors.titles import title_case

    assert title_case(heading) == cased
