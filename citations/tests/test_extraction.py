"""Extraction: every citation format in SPEC §3 and the seeds, and bad output."""

from __future__ import annotations

import json
import time

import pytest

from citations.extraction import (
    MAX_CANDIDATES,
    MAX_MARKERS,
    CitationCandidate,
    classify,
    extract_citations,
    normalize_ref,
)


def _pairs(extraction):
    return [(c.ref, c.quote, c.kind) for c in extraction.candidates]


def test_quote_pairs_with_numbered_and_s_refs():
    answer = (
        'The term is "five years" (Source: [S1]) and notice is "90 days" (Source: [2]).'
    )
    e = extract_citations(answer)
    assert _pairs(e) == [
        ("S1", "five years", "quote_pair"),
        ("S2", "90 days", "quote_pair"),
    ]
    first = e.candidates[0]
    assert answer[first.answer_start : first.answer_end] == '"five years"'


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("“", "”"), ('"', '"'), ("„", "“"), ("«", "»"), ("« ", " »")],
)
def test_curly_low_and_guillemet_quotes(opening, closing):
    e = extract_citations(f"It says {opening}shall deliver{closing} (Source: [S3]).")
    assert _pairs(e) == [("S3", "shall deliver", "quote_pair")]


def test_quote_spanning_a_line_break():
    e = extract_citations("“within thirty\n(30) days” (Source: [S1])")
    assert e.candidates[0].quote == "within thirty\n(30) days"


def test_several_citations_in_one_sentence_and_several_refs_per_quote():
    answer = '"A" (Source: [S1]), "B" [S2] and "C" (Sources: [S3], [S4]).'
    assert _pairs(extract_citations(answer)) == [
        ("S1", "A", "quote_pair"),
        ("S2", "B", "quote_pair"),
        ("S3", "C", "quote_pair"),
        ("S4", "C", "quote_pair"),
    ]


def test_a_quoted_term_without_a_source_is_not_a_citation():
    e = extract_citations(
        'The "Agreement" means "this contract as amended" (Source: [S1]).'
    )
    assert _pairs(e) == [("S1", "this contract as amended", "quote_pair")]


RENEWAL = (
    "This Agreement renews for successive one-year terms (each, a "
    "{o}Renewal Term{c}), unless a Party provides notice of non-renewal"
)


@pytest.mark.parametrize(
    ("answer", "inner"),
    [
        # Contracts quote their defined terms: the quote is whole, its own
        # quotation marks included, whatever marks the model uses.
        ('"{q}" (Source: [S1]).', ('"', '"')),
        ('"{q}" [S1].', ('"', '"')),
        ("“{q}” (Source: [S1]).", ('"', '"')),
        ("“{q}” (Source: [S1]).", ("“", "”")),
        ('"{q}" (Source: [S1]).', ("“", "”")),
        ("„{q}“ (Source: [S1]).", ('"', '"')),
        ("«{q}» (Source: [S1]).", ("“", "”")),
        ('The term: "{q}" (Sources: [S1], [S2]).', ('"', '"')),
    ],
)
def test_a_quote_holding_quotation_marks_is_extracted_whole(answer, inner):
    quote = RENEWAL.format(o=inner[0], c=inner[1])
    e = extract_citations("Renewal: " + answer.format(q=quote))
    candidate = e.candidates[0]
    assert candidate.quote == quote
    assert candidate.kind == "quote_pair" and candidate.ref == "S1"
    spanned = e.answer[candidate.answer_start : candidate.answer_end]
    assert spanned[1:-1] == quote


def test_quoted_terms_inside_and_outside_a_cited_quote():
    answer = (
        'The "Term" ends, and "the "Initial Term" is five years" (Source: [S1]); '
        '"Affiliate" means "any entity that controls a Party" (Source: [S2]).'
    )
    assert _pairs(extract_citations(answer)) == [
        ("S1", 'the "Initial Term" is five years', "quote_pair"),
        ("S2", "any entity that controls a Party", "quote_pair"),
    ]


def test_a_quote_opening_with_a_quoted_term():
    e = extract_citations('""Licensed Products" means the Products" (Source: [S4])')
    assert _pairs(e) == [("S4", '"Licensed Products" means the Products', "quote_pair")]


def test_quotes_with_quotation_marks_in_xml_and_json():
    quote = 'each, a "Renewal Term", unless'
    xml = f"<citations><citation ref='S1'><quote>{quote}</quote></citation></citations>"
    assert extract_citations("x\n" + xml).candidates[0].quote == quote
    data = json.dumps({"answer": "x", "citations_used": [{"id": "S2", "quote": quote}]})
    assert extract_citations(data).candidates[0].quote == quote


def test_inline_refs_in_every_shape():
    answer = "Fees rose [S1]. Both agree [S1, S3]; see also [S4][S5], [2] and [S6-S8]."
    e = extract_citations(answer)
    assert [c.ref for c in e.candidates] == [
        "S1",
        "S3",
        "S4",
        "S5",
        "S2",
        "S6",
        "S7",
        "S8",
    ]
    assert all(c.quote is None and c.kind == "inline_ref" for c in e.candidates)
    s4 = next(c for c in e.candidates if c.ref == "S4")
    assert answer[s4.answer_start : s4.answer_end] == "[S4]"
    assert [m.ref for m in e.markers].count("S1") == 2  # each occurrence gets a badge


def test_markdown_links_and_prose_brackets_are_not_refs():
    e = extract_citations(
        "See [the guide](https://x.test/1) and [note] and [1]: https://x.test"
    )
    assert e.candidates == []


def test_citations_block_is_parsed_and_removed_from_the_answer():
    answer = "Revenue grew 10% [S1].\n\n<citations> S1 S3 </citations>"
    e = extract_citations(answer)
    assert e.answer == "Revenue grew 10% [S1]."
    assert [(c.ref, c.kind) for c in e.candidates] == [
        ("S1", "inline_ref"),
        ("S3", "citations_block"),
    ]


def test_citations_xml_with_attributes_and_children():
    answer = (
        "Answer text.\n<citations>\n"
        '<citation ref="S1" chunk_id="c-1" revision_id="r-9" doc_name="MSA.pdf" page="3" '
        'section="4.2"><quote>shall deliver &amp; install</quote></citation>\n'
        "<citation><ref>S2</ref><doc_name>NDA</doc_name><quote><![CDATA[may not <disclose>]]></quote></citation>\n"
        "<citation ref='S4' quote='inline attribute quote'/>\n"
        "</citations>"
    )
    e = extract_citations(answer)
    assert e.answer == "Answer text."
    by_ref = {c.ref: c for c in e.candidates}
    assert by_ref["S1"].quote == "shall deliver & install"
    assert by_ref["S1"].extra == {
        "chunk_id": "c-1",
        "revision_id": "r-9",
        "doc_name": "MSA.pdf",
        "page": 3,
        "section": "4.2",
    }
    assert by_ref["S1"].kind == "citations_xml" and by_ref["S1"].answer_start is None
    assert by_ref["S2"].quote == "may not <disclose>"
    assert by_ref["S4"].quote == "inline attribute quote"


def test_json_answer_with_ids_and_objects():
    payload = {
        "answer": 'Notice is "90 days" (Source: [S2]) [S1].',
        "citations_used": ["S1", {"id": "S2", "quote": "90 days"}, {"id": "S9"}],
    }
    e = extract_citations("```json\n" + json.dumps(payload) + "\n```")
    assert e.answer == payload["answer"]
    assert sorted(_pairs(e)) == [
        ("S1", None, "inline_ref"),
        ("S2", "90 days", "quote_pair"),
        ("S9", None, "json"),
    ]
    s2 = next(c for c in e.candidates if c.ref == "S2")
    assert e.answer[s2.answer_start : s2.answer_end] == '"90 days"'


def test_json_cut_mid_stream_is_salvaged_and_flagged():
    full = json.dumps(
        {
            "answer": 'It is "net 30" (Source: [S1]).',
            "citations_used": ["S1", {"id": "S2", "quote": "x"}],
        }
    )
    for cut in range(1, len(full)):
        e = extract_citations(full[:cut])
        assert isinstance(e.answer, str)
    e = extract_citations(full[: full.index('{"id"') + 5])
    assert e.answer == 'It is "net 30" (Source: [S1]).'
    assert ("S1", "net 30", "quote_pair") in _pairs(e)
    assert e.problems


def test_unterminated_citations_block_is_flagged():
    e = extract_citations("Answer [S1].\n<citations> S1 S2")
    assert e.answer == "Answer [S1]."
    assert {c.ref for c in e.candidates} == {"S1", "S2"}
    assert any("unterminated" in p for p in e.problems)


def test_duplicates_are_kept_once():
    e = extract_citations(
        '"x y" (Source: [S1]) and again "x y" (Source: [S1]) [S1] [S1]'
    )
    assert _pairs(e) == [("S1", "x y", "quote_pair"), ("S1", None, "inline_ref")]


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "[[[[S1",
        '"unclosed quote (Source: [S1]',
        "<citations><citation ref=",
        "<citation ref='S1'><quote>never closed",
        '{"answer": 5}',
        '{"answer": "x", "citations_used": "S1"}',
        '{"answer": "\\ud800 broken \\u12',
        "{" * 5000,
        "[S999999999999]",
        "\x00\x01 [S1] \udcff",
        "“" * 3000 + "(Source: [S1])",
    ],
)
def test_malformed_output_never_raises(garbage):
    e = extract_citations(garbage)
    assert isinstance(e.answer, str)
    assert len(e.candidates) <= MAX_CANDIDATES


def test_ten_thousand_citations_are_bounded():
    answer = " ".join(
        f'"quote number {i}" (Source: [S{i % 40}])' for i in range(10_000)
    )
    started = time.perf_counter()
    e = extract_citations(answer, known_refs=["S1", "S2"])
    assert time.perf_counter() - started < 30  # generous: a hang would be the bug
    assert len(e.candidates) <= MAX_CANDIDATES and len(e.markers) <= MAX_MARKERS
    assert e.truncated


def test_known_refs_survive_truncation():
    invented = " ".join(f"[S{i}]" for i in range(100, 700))
    e = extract_citations(invented + ' "real" (Source: [S1])', known_refs={"S1"})
    assert any(c.ref == "S1" and c.quote == "real" for c in e.candidates)


def test_classify():
    known = {"S1", "S2"}
    assert (
        classify(CitationCandidate("S1", "q", 0, 1, "quote_pair"), known) == "pending"
    )
    assert (
        classify(CitationCandidate("S2", None, 0, 1, "inline_ref"), known)
        == "unverified"
    )
    assert (
        classify(CitationCandidate("S7", "q", 0, 1, "quote_pair"), known)
        == "out_of_provenance"
    )
    assert classify(CitationCandidate("S7", "q", 0, 1, "quote_pair"), None) == "pending"
    assert (
        classify(CitationCandidate("S1", "q", 0, 1, "quote_pair"), ["1"]) == "pending"
    )


def test_normalize_ref():
    assert normalize_ref("S01") == normalize_ref("[1]") == normalize_ref(1) == "S1"
    assert normalize_ref("source 3") == "S3"
    assert normalize_ref("9b2f-uuid") == "9b2f-uuid"
    assert normalize_ref("  ") is None and normalize_ref(True) is None
