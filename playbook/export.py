"""The playbook report as DOCX (python-docx) and XLSX (openpyxl), with citations.

DOCX: a title, the playbook and the date, then per contract its summary line
and its findings grouped by severity; each finding gives the position, the
finding (the reviewer's over the engine's, both shown when they differ),
what the contract says, the verified quote with its page and verification
("Quote, page 3, verified: “…”"), the standard and rule, why, what was
searched for a missing clause, the guidance, a model's suggested wording
marked as a suggestion, and the reviewer's decision with its note.

XLSX: "Findings" (one row per finding of every contract: the same fields,
the link to the highlighted passage), and "History" (every decision).

Nothing a document or a model wrote becomes a formula: cells go through
`lib.spreadsheets` (XLSX text cells are typed strings, stripped of characters
XML cannot hold).
"""

from __future__ import annotations

import io

from django.utils import timezone
from django.utils.text import slugify
from docx import Document as DocxDocument
from docx.shared import Pt, RGBColor
from openpyxl import Workbook
from openpyxl.styles import Alignment

from lib.spreadsheets import XLSX_CONTENT_TYPE as XLSX_CONTENT_TYPE
from lib.spreadsheets import put_cell, put_header, workbook_bytes
from lib.spreadsheets import xml_text as _clean
from playbook import findings as rules
from playbook.models import FindingEvent, PlaybookRun
from playbook.selectors import ContractReport, FindingView, run_reports
from tabular.models import ReviewDocument

DOCX_CONTENT_TYPE = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)
SEVERITY_COLOURS = {
    "high": RGBColor(0xB0, 0x1E, 0x1E),
    "medium": RGBColor(0xA8, 0x5B, 0x00),
    "low": RGBColor(0x44, 0x55, 0x66),
}


def filename(run: PlaybookRun, ext: str, row: ReviewDocument | None = None) -> str:
    base = slugify(run.playbook_name)[:40] or "playbook"
    if row is not None:
        base += "-" + (slugify(row.title)[:40] or "contract")
    return f"playbook-{base}-{str(run.pk)[:8]}.{ext}"


def finding_label(view: FindingView) -> str:
    label = rules.KIND_LABELS.get(view.kind, view.kind)
    if view.severity:
        label += f" ({view.severity})"
    elif view.kind == rules.MISSING:
        label += " (acceptable)"
    return label


def citation_line(view: FindingView) -> str:
    """'Quote, page 3, verified: “…”' (or why there is none)."""
    if not view.quote:
        return ""
    where = f", page {view.page}" if view.page else ""
    status = view.citation_status or "not checked"
    return f"Quote{where}, {status}: “{view.quote}”"


def decision_line(view: FindingView) -> str:
    f = view.finding
    if f.decision == "unreviewed":
        return "Not reviewed yet."
    who = f.decided_by.get_username() if f.decided_by else "a reviewer"
    when = (
        timezone.localtime(f.decided_at).strftime("%Y-%m-%d %H:%M")
        if f.decided_at
        else ""
    )
    if f.decision == "accepted":
        text = f"Accepted by {who} {when}"
    else:
        engine = rules.KIND_LABELS.get(f.kind, f.kind) + (
            f" ({f.severity})" if f.severity else ""
        )
        text = f"Overridden by {who} {when} (the engine found: {engine})"
    return text + (f": {f.decision_note}" if f.decision_note else ".")


# ---------------------------------------------------------------- DOCX


def _para(doc, label: str, text: str, *, italic: bool = False) -> None:
    if not text:
        return
    p = doc.add_paragraph()
    p.add_run(f"{label}: ").bold = True
    run = p.add_run(_clean(text))
    run.italic = italic


def _docx_finding(doc, view: FindingView) -> None:
    heading = doc.add_heading(level=3)
    heading.add_run(_clean(view.position.title))
    p = doc.add_paragraph()
    run = p.add_run(finding_label(view))
    run.bold = True
    if view.severity in SEVERITY_COLOURS:
        run.font.color.rgb = SEVERITY_COLOURS[view.severity]
    if view.kind != view.finding.kind:
        p.add_run(
            f" (engine: {rules.KIND_LABELS.get(view.finding.kind, view.finding.kind)})"
        )
    _para(doc, "The contract says", view.value)
    line = citation_line(view)
    if line:
        q = doc.add_paragraph(_clean(line))
        q.style = (
            doc.styles["Quote"] if "Quote" in [s.name for s in doc.styles] else q.style
        )
    _para(
        doc,
        "Standard",
        view.position.standard
        + (f" (rule: {view.standard_rule})" if view.standard_rule else ""),
    )
    if view.position.fallbacks:
        _para(doc, "Fallbacks", "; ".join(view.position.fallbacks))
    _para(doc, "Why", view.finding.reason)
    _para(doc, "Guidance", view.position.guidance)
    if view.finding.suggestion:
        _para(
            doc,
            f"Suggested wording (a suggestion by {view.finding.suggestion_model or 'the model'}; check before use)",
            view.finding.suggestion,
            italic=True,
        )
    _para(doc, "Review", decision_line(view))


def report_docx(
    run: PlaybookRun, *, rows: list[ReviewDocument] | None = None
) -> io.BytesIO:
    reports = run_reports(run, rows=rows)
    doc = DocxDocument()
    doc.styles["Normal"].font.size = Pt(10)
    doc.add_heading(_clean(f"Playbook review: {run.playbook_name}"), level=0)
    doc.add_paragraph(
        _clean(
            f"{run.review.name} · {timezone.localtime(run.created_at):%Y-%m-%d} · "
            f"{len(reports)} contract{'s' if len(reports) != 1 else ''}. Every quote was "
            "checked against the contract's text; only verified quotes can meet the standard."
        )
    )
    for report in reports:
        _docx_contract(doc, report)
    out = io.BytesIO()
    doc.save(out)
    out.seek(0)
    return out


def _docx_contract(doc, report: ContractReport) -> None:
    doc.add_heading(_clean(report.row.title or str(report.row.document_uid)), level=1)
    doc.add_paragraph(_clean(report.summary.line))
    if report.row.state not in ("ready", "pending"):
        doc.add_paragraph(
            _clean(f"This contract could not be read: {report.row.error}")
        )
    for group in report.groups:
        doc.add_heading(f"{group.label}", level=2)
        for view in group.items:
            _docx_finding(doc, view)


# ---------------------------------------------------------------- XLSX

FINDING_COLUMNS = (
    ("Contract", 34),
    ("Position", 24),
    ("Finding", 22),
    ("Severity", 10),
    ("Engine finding", 18),
    ("Engine severity", 10),
    ("Rule", 20),
    ("The contract says", 24),
    ("Quote", 60),
    ("Page", 6),
    ("Verification", 12),
    ("Method", 14),
    ("Link", 30),
    ("Standard", 40),
    ("Standard rule", 24),
    ("Fallbacks", 30),
    ("Why", 50),
    ("Searched for", 30),
    ("Guidance", 40),
    ("Suggested wording (model suggestion)", 50),
    ("Review", 12),
    ("Reviewer", 14),
    ("Review note", 40),
)


def _finding_row(report: ContractReport, view: FindingView) -> list[object]:
    f = view.finding
    return [
        report.row.title,
        view.position.title,
        rules.KIND_LABELS.get(view.kind, view.kind),
        view.severity,
        rules.KIND_LABELS.get(f.kind, f.kind),
        f.severity,
        f.rule,
        view.value,
        view.quote,
        view.page if view.page else "",
        view.citation_status,
        view.citation_method,
        view.link,
        view.position.standard,
        view.standard_rule,
        "; ".join(view.position.fallbacks or ()),
        f.reason,
        ", ".join(view.searched_terms) if view.kind == rules.MISSING else "",
        view.position.guidance,
        f.suggestion,
        f.decision,
        f.decided_by.get_username() if f.decided_by else "",
        f.decision_note,
    ]


def report_xlsx(
    run: PlaybookRun, *, rows: list[ReviewDocument] | None = None
) -> io.BytesIO:
    reports = run_reports(run, rows=rows)
    wb = Workbook()
    ws = wb.active
    ws.title = "Findings"
    put_header(ws, *zip(*FINDING_COLUMNS, strict=True))
    line = 2
    ids = []
    for report in reports:
        for group in report.groups:
            for view in group.items:
                ids.append(view.finding.pk)
                for col, value in enumerate(_finding_row(report, view), start=1):
                    put_cell(ws, line, col, value)
                    ws.cell(row=line, column=col).alignment = Alignment(
                        wrap_text=True, vertical="top"
                    )
                line += 1
    ws.freeze_panes = "C2"
    history = wb.create_sheet("History")
    head = (
        "Contract",
        "Position",
        "When",
        "Who",
        "Action",
        "Finding before",
        "Finding after",
        "Note",
    )
    put_header(history, head)
    events = (
        FindingEvent.objects.filter(finding_id__in=ids)
        .select_related("finding__row", "finding__position")
        .order_by("created_at", "id")
    )
    for i, event in enumerate(events, start=2):
        values = (
            event.finding.row.title,
            event.finding.position.title,
            timezone.localtime(event.created_at).strftime("%Y-%m-%d %H:%M:%S"),
            event.user_name,
            event.get_action_display(),
            f"{event.kind_before} {event.severity_before}".strip(),
            f"{event.kind_after} {event.severity_after}".strip(),
            event.note,
        )
        for col, value in enumerate(values, start=1):
            put_cell(history, i, col, value)
    return workbook_bytes(wb)
