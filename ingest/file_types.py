"""File types: one table saying, for each kind of document, how an upload of
it is recognised and read, and how a passage of it is located.

`Document.source_type` is a row of `FILE_TYPES`: an upload's type is found
from its extension or declared content type (`ingest.extractors.
detect_source_type`; magic bytes first), read by the row's extractor (its
own module, `ingest/extractors/<type>.py`, run in the sandbox), and a cited
passage is located by the row's locator (`ingest.locations`). Types without
an extractor are made by connectors (ingest.source_kinds). The model field's
choices, the extractors' lookups, the "supported" message and the paged and
chat types are derived from the table (docs/how-to-add-a-file-type.md).
Pure: no Django (the sandbox child imports it).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass

from lib.tables import row_added

__all__ = [
    "FILE_TYPES",
    "FileType",
    "by_content_type",
    "by_extension",
    "chat_types",
    "choices",
    "file_type",
    "paged_types",
    "prompt_label",
    "registered",
    "supported_label",
    "upload_types",
]


@dataclass(frozen=True)
class FileType:
    key: str  # Document.source_type (at most 16 characters)
    label: str  # Document.get_source_type_display()
    # How a sentence names it ("This {noun} file is damaged"); "" for none.
    noun: str = ""
    # How the "supported types" message names it; "" when not uploaded.
    supported_as: str = ""
    extensions: tuple[str, ...] = ()  # lower case, with the dot
    content_types: tuple[str, ...] = ()
    # "module:function" that reads a file of this type in the sandbox
    # (ingest.extractors.extract); "" when a connector makes its documents.
    extractor: str = ""
    # How a passage is located (ingest.locations.LOCATORS): "page", "chat",
    # "row", "email", "web", "gdrive", or "" (the document as a whole).
    locator: str = ""
    # How a model's prompt names the type in a source's header, seed 004's
    # canonical form ('[S1] PDF – "Title"'); "" for its label.
    prompt_label: str = ""

    @property
    def paged(self) -> bool:
        """Its page map is real (a PDF's pages, a DOCX's breaks): a citation
        names its page."""
        return self.locator == "page"


FILE_TYPES: tuple[FileType, ...] = (
    FileType(
        "pdf",
        "PDF",
        noun="PDF",
        supported_as="PDF",
        extensions=(".pdf",),
        content_types=("application/pdf", "application/x-pdf"),
        extractor="ingest.extractors.pdf:extract_pdf",
        locator="page",
    ),
    FileType(
        "text",
        "Text",
        noun="text",
        supported_as="plain text",
        extensions=(".txt", ".text"),
        content_types=("text/plain",),
        extractor="ingest.extractors.text:extract_text",
    ),
    FileType(
        "markdown",
        "Markdown",
        noun="Markdown",
        supported_as="Markdown",
        extensions=(".md", ".markdown", ".mdown"),
        content_types=("text/markdown", "text/x-markdown"),
        extractor="ingest.extractors.text:extract_markdown",
    ),
    FileType(
        "html",
        "HTML",
        noun="HTML",
        supported_as="HTML",
        extensions=(".html", ".htm", ".xhtml"),
        content_types=("text/html", "application/xhtml+xml"),
        extractor="ingest.extractors.html:extract_html",
    ),
    # A page captured by URL: its own content type (ingest.extractors.
    # WEB_CAPTURE_TYPE), never an upload.
    FileType(
        "web",
        "Web page",
        noun="web page",
        extractor="ingest.connectors.web:extract_web",
        locator="web",
        prompt_label="Web",
    ),
    FileType(
        "email",
        "Email",
        noun="email",
        supported_as="email (.eml)",
        extensions=(".eml",),
        content_types=("message/rfc822",),
        extractor="ingest.extractors.email:extract_email",
        locator="email",
    ),
    FileType(
        "docx",
        "Word",
        noun="Word",
        supported_as="Word (.docx)",
        extensions=(".docx",),
        content_types=(
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
        extractor="ingest.extractors.docx:extract_docx",
        locator="page",
        prompt_label="DOCX",
    ),
    FileType(
        "csv",
        "CSV",
        noun="CSV",
        supported_as="CSV",
        extensions=(".csv", ".tsv"),
        content_types=("text/csv", "application/csv", "text/tab-separated-values"),
        extractor="ingest.extractors.csv:extract_csv",
    ),
    # Made by connectors (issue 29; seed 004's source types): one document
    # per chat thread, per table row; GDRIVE names files whose metadata says
    # they came from Google Drive.
    FileType("slack", "Slack", locator="chat"),
    FileType("teams", "Teams", locator="chat"),
    FileType("db", "Database row", locator="row", prompt_label="DB"),
    FileType("gdrive", "Google Drive", locator="gdrive"),
    FileType("unknown", "Unknown"),
)

UNKNOWN = "unknown"


def file_type(key: str) -> FileType | None:
    for kind in FILE_TYPES:
        if kind.key == key:
            return kind
    return None


def prompt_label(key: str) -> str:
    """How a model's prompt names a document's type ("PDF", "DOCX", "Slack"):
    the row's; a type the table does not hold by its key ("Document" for
    none)."""
    key = (key or "document").strip().lower()
    kind = file_type(key)
    if kind is None:
        return key.replace("_", " ").title()
    return kind.prompt_label or kind.label


def choices() -> list[tuple[str, str]]:
    """(key, label) per type: `Document.source_type`'s choices."""
    return [(t.key, t.label) for t in FILE_TYPES]


def upload_types() -> tuple[str, ...]:
    """The types an upload may be (found by extension or content type)."""
    return tuple(t.key for t in FILE_TYPES if t.extensions)


def by_extension(ext: str) -> str | None:
    for kind in FILE_TYPES:
        if ext in kind.extensions:
            return kind.key
    return None


def by_content_type(content_type: str) -> str | None:
    for kind in FILE_TYPES:
        if content_type in kind.content_types:
            return kind.key
    return None


def supported_label() -> str:
    """ "PDF, plain text, … and CSV": what an upload may be, for messages."""
    names = [t.supported_as for t in FILE_TYPES if t.supported_as]
    return (
        ", ".join(names[:-1]) + " and " + names[-1]
        if len(names) > 1
        else "".join(names)
    )


def paged_types() -> frozenset[str]:
    return frozenset(t.key for t in FILE_TYPES if t.paged)


def chat_types() -> frozenset[str]:
    return frozenset(t.key for t in FILE_TYPES if t.locator == "chat")


def segmented_types() -> frozenset[str]:
    """Types whose location is per passage (a message, a column): a
    citation's own offsets choose it."""
    return frozenset(t.key for t in FILE_TYPES if t.locator in ("chat", "row"))


def registered(kind: FileType) -> AbstractContextManager[FileType]:
    """`kind` is a row of the table while the block runs (tests add a fake
    type this way; a real one is a row of `FILE_TYPES`). The sandbox child
    does not see it: a test extracts in process."""
    return row_added(__name__, "FILE_TYPES", kind)
