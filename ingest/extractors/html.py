"""HTML pages: the visible text of the article, title and page metadata.

Text a reader cannot see is dropped, not just scripts and styles: hidden
elements are the classic carrier of prompt injections aimed at the model
(RELIABILITY.md UPL-08). Block elements become line breaks so paragraphs survive
as paragraphs; whitespace inside running text collapses as a browser shows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, NavigableString, Tag

from ingest.extractors import Extracted
from ingest.extractors._common import Progress, read_limited, title_from_filename
from ingest.limits import Limits

__all__ = [
    "HtmlDocument",
    "extract_html",
    "html_to_text",
    "parse_html",
    "visible_markup",
]

_DROP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "iframe",
        "object",
        "embed",
        "svg",
        "canvas",
        "head",
        "title",
        "meta",
        "link",
        "input",
        "select",
        "option",
        "button",
        "textarea",
        "dialog",
    }
)
_PARAGRAPH = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "table",
        "ul",
        "ol",
        "dl",
        "figure",
        "section",
        "article",
        "header",
        "footer",
        "aside",
        "nav",
        "main",
        "hr",
        "address",
        "form",
        "fieldset",
        "details",
    }
)
_LINE = frozenset(
    {
        "div",
        "li",
        "dt",
        "dd",
        "tr",
        "caption",
        "figcaption",
        "summary",
        "br",
        "center",
        "hgroup",
        "legend",
        "menu",
        "body",
        "html",
        "thead",
        "tbody",
        "tfoot",
        "label",
        "option",
    }
)
_CELL = frozenset({"td", "th"})
_HIDDEN_STYLE = re.compile(
    r"display:none|visibility:hidden|font-size:0(?![.\d])|opacity:0(?:\.0+)?(?![.\d])"
)
_HIDDEN_CLASSES = frozenset({"hidden", "d-none", "is-hidden", "display-none"})
_SPACES = re.compile(r"[ \t\n\r\f\v]+")
_MIN_ARTICLE_SHARE = 0.4


@dataclass
class HtmlDocument:
    title: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    origin_url: str | None = None


def extract_html(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    doc = parse_html(read_limited(path, limits.max_file_bytes))
    progress(1, 1)
    return Extracted(
        title=doc.title or title_from_filename(filename),
        source_type="html",
        pages=[doc.text],
        metadata=doc.metadata,
        origin_url=doc.origin_url,
    )


def html_to_text(markup: str | bytes) -> str:
    """The visible text of an HTML fragment or page (used for HTML-only emails)."""
    return parse_html(markup, prefer_article=False).text


def visible_markup(markup: str | bytes) -> str:
    """The page's markup without what a reader cannot see (scripts, hidden
    elements), for an article extractor to read (ingest.connectors.web)."""
    soup = BeautifulSoup(markup, "lxml")
    _remove_invisible(soup.body or soup)
    return str(soup)


def parse_html(markup: str | bytes, *, prefer_article: bool = True) -> HtmlDocument:
    soup = BeautifulSoup(markup, "lxml")
    metadata = _metadata(soup)
    origin_url = _canonical_url(soup)
    title = _title(soup)
    root = soup.body or soup
    hidden = _remove_invisible(root)
    if hidden:
        metadata["hidden_elements_removed"] = hidden
    text = _render(root)
    if prefer_article:
        article = _article(root)
        if article is not None:
            article_text = _render(article)
            if len(article_text) >= _MIN_ARTICLE_SHARE * len(text):
                text = article_text
                metadata["article_only"] = True
    return HtmlDocument(
        title=title, text=text, metadata=metadata, origin_url=origin_url
    )


def _remove_invisible(root: Tag) -> int:
    for tag in root.find_all(_DROP):
        tag.decompose()
    hidden = [tag for tag in root.find_all(True) if _is_hidden(tag)]
    for tag in hidden:
        if not tag.decomposed:
            tag.decompose()
    return len(hidden)


def _is_hidden(tag: Tag) -> bool:
    attrs = tag.attrs
    if "hidden" in attrs or str(attrs.get("aria-hidden", "")).lower() == "true":
        return True
    style = attrs.get("style")
    if style and _HIDDEN_STYLE.search(str(style).lower().replace(" ", "")):
        return True
    classes = attrs.get("class") or []
    return bool(_HIDDEN_CLASSES.intersection(c.lower() for c in classes))


def _article(root: Tag) -> Tag | None:
    mains = root.find_all("main") or root.find_all(attrs={"role": "main"})
    if len(mains) == 1:
        return mains[0]
    articles = [a for a in root.find_all("article") if a.find_parent("article") is None]
    return articles[0] if len(articles) == 1 else None


def _render(root: Tag) -> str:
    """Text with block structure; iterative, so deeply nested markup cannot recurse."""
    out = _Builder()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        if isinstance(node, NavigableString):
            if type(node) is NavigableString:  # not a comment, CDATA, doctype, ...
                out.text(str(node))
            continue
        if not isinstance(node, Tag):
            continue
        name = node.name
        if closing:
            if name == "pre":
                out.pre_depth -= 1
            out.block(name, closing=True)
            continue
        out.block(name, closing=False)
        if name == "pre":
            out.pre_depth += 1
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.contents))
    return out.value()


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pending = 0  # newlines owed before the next text
        self.pre_depth = 0
        self.space = False  # a collapsed space is owed before the next text

    def block(self, name: str, *, closing: bool) -> None:
        if name in _PARAGRAPH:
            self.pending = max(self.pending, 2)
        elif name in _LINE:
            self.pending = max(self.pending, 1)
        elif name in _CELL and not closing:
            # Cells of a row are separated by a tab; the row itself is a line.
            if (
                self.parts
                and not self.pending
                and not self.parts[-1].endswith(("\n", "\t"))
            ):
                self.parts.append("\t")
            self.space = False

    def text(self, value: str) -> None:
        if not self.pre_depth:
            value = _SPACES.sub(" ", value)
            if value.startswith(" "):
                self.space = True
                value = value[1:]
            trailing = value.endswith(" ")
            value = value.rstrip(" ")
            if not value:
                return
        else:
            trailing = False
        if self.pending:
            if self.parts:
                self.parts.append("\n" * self.pending)
            self.pending = 0
        elif self.space and self.parts and not self.parts[-1].endswith(("\n", "\t")):
            self.parts.append(" ")
        self.parts.append(value)
        self.space = trailing

    def value(self) -> str:
        return "".join(self.parts).strip("\n")


def _title(soup: BeautifulSoup) -> str:
    og = soup.find("meta", attrs={"property": "og:title"})
    candidates = [
        og.get("content") if og else None,
        soup.title.get_text() if soup.title else None,
    ]
    h1 = soup.find("h1")
    if h1 is not None:
        candidates.append(h1.get_text(" "))
    for value in candidates:
        value = " ".join(str(value or "").split())
        if value:
            return value[:500]
    return ""


def _meta(soup: BeautifulSoup, *names: str) -> str | None:
    for name in names:
        tag = soup.find("meta", attrs={"name": name}) or soup.find(
            "meta", attrs={"property": name}
        )
        if tag is not None and str(tag.get("content") or "").strip():
            return " ".join(str(tag["content"]).split())[:1000]
    return None


def _metadata(soup: BeautifulSoup) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    html = soup.find("html")
    if html is not None and html.get("lang"):
        meta["lang"] = str(html["lang"]).strip()[:35]
    byline = _meta(soup, "author", "article:author", "dc.creator", "byl")
    if byline and byline.startswith(("http://", "https://")):
        byline = None
    if not byline:
        tag = (
            soup.find(attrs={"rel": "author"})
            or soup.find(attrs={"itemprop": "author"})
            or soup.find(class_=re.compile(r"\bbyline\b", re.I))
        )
        if tag is not None:
            byline = " ".join(tag.get_text(" ").split())[:200] or None
    if byline:
        meta["byline"] = byline
    for key, names in (
        ("description", ("description", "og:description")),
        ("site_name", ("og:site_name",)),
        ("published", ("article:published_time", "date", "dc.date")),
    ):
        value = _meta(soup, *names)
        if value:
            meta[key] = value
    return meta


def _canonical_url(soup: BeautifulSoup) -> str | None:
    link = soup.find("link", rel="canonical")
    candidates = [link.get("href") if link else None]
    og = soup.find("meta", attrs={"property": "og:url"})
    candidates.append(og.get("content") if og else None)
    for url in candidates:
        url = str(url or "").strip()
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            return url[:2000]
    return None
