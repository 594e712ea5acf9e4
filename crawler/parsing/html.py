"""HTML to text the way a reader sees it: block elements are paragraphs, inline text is kept.

lxml does the parsing; what is written here is only the rendering rule (which elements start a
paragraph, `<br>` as a space), which no library states the way the debate sites need it.
"""

from __future__ import annotations

import re
from functools import lru_cache

import lxml.html
from lxml.cssselect import CSSSelector
from lxml.etree import ParserError, _Element
from w3lib.encoding import html_body_declared_encoding

from crawler.parsing.records import BadPageError

BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "table",
        "tbody",
        "thead",
        "tr",
        "td",
        "th",
        "dd",
        "dt",
        "dl",
        "pre",
        "section",
        "article",
        "header",
        "footer",
        "aside",
        "nav",
        "figure",
        "figcaption",
        "hr",
    }
)
DROPPED_TAGS = ("script", "style", "noscript", "template")
SPACE = re.compile(r"\s+")
XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")

# The Wayback Machine's own pages when it has no usable capture.
ARCHIVE_ERROR_MARKERS = (
    "Wayback Machine has not archived that URL",
    "This URL has been excluded from the Wayback Machine",
    "Wayback Machine doesn't have that page archived",
)
LOGIN_WALL = re.compile(
    r"(you must (be )?log(ged)? ?in|please (log|sign) ?in to (view|continue|see)|access denied)", re.I
)


def squash(text: str) -> str:
    """Collapse runs of white space (including no-break spaces) to one space."""
    return SPACE.sub(" ", text.replace("\xa0", " ")).strip()


def decode(body: bytes) -> str:
    """Bytes to text by the declared charset (HTML5 `<meta charset>` too), else UTF-8, else cp1252."""
    for encoding in (html_body_declared_encoding(body), "utf-8", "cp1252"):
        if not encoding:
            continue
        try:
            return body.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("utf-8", "replace")


def load_html(html: str | bytes) -> _Element:
    """Parse a page; an empty or unparsable one is a bad page, not a crash."""
    text = decode(html) if isinstance(html, bytes) else html
    if not text.strip():
        raise BadPageError("empty_page")
    try:
        root = lxml.html.fromstring(XML_DECLARATION.sub("", text, count=1))
    except (ParserError, ValueError) as error:
        raise BadPageError("unparsable_html", str(error)) from None
    for element in root.iter(*DROPPED_TAGS):
        element.drop_tree()
    # A line break reads as a space; without this "end.<br>Next" would glue into "end.Next".
    for br in root.iter("br"):
        br.tail = " " + (br.tail or "")
    return root


def text_of(element: _Element | None) -> str:
    """All text inside an element, inline tags included, white space collapsed."""
    if element is None:
        return ""
    return squash(element.text_content())


@lru_cache(maxsize=256)
def _compiled(selector: str) -> CSSSelector:
    return CSSSelector(selector)


def select(root: _Element, selector: str) -> list[_Element]:
    """`root.cssselect(selector)` with the selector compiled once: compiling dominated parse time."""
    return _compiled(selector)(root)


def first(root: _Element, selector: str) -> _Element | None:
    found = select(root, selector)
    return found[0] if found else None


def first_text(root: _Element, selector: str) -> str:
    return text_of(first(root, selector))


def _has_block(element: _Element) -> bool:
    return any(isinstance(child.tag, str) and child.tag in BLOCK_TAGS for child in element.iterdescendants())


def paragraphs(container: _Element | None) -> list[str]:
    """The paragraphs of a container: each innermost block element, and loose text between blocks."""
    if container is None:
        return []
    out: list[str] = []
    _collect(container, out)
    return [p for p in out if p]


def _collect(element: _Element, out: list[str]) -> None:
    if not _has_block(element):
        out.append(text_of(element))
        return
    loose: list[str] = [element.text or ""]
    for child in element:
        is_block = isinstance(child.tag, str) and child.tag in BLOCK_TAGS
        if is_block:
            out.append(squash("".join(loose)))
            loose = []
            _collect(child, out)
        elif isinstance(child.tag, str):
            loose.append(child.text_content())
        loose.append(child.tail or "")
    out.append(squash("".join(loose)))


def canonical_url(root: _Element, fallback: str) -> str:
    """The page's own `<link rel=canonical>`, else the URL it was fetched from."""
    for link in select(root, "link[rel=canonical]"):
        href = (link.get("href") or "").strip()
        if href.startswith(("http://", "https://")):
            return href
    return fallback


def meta_content(root: _Element, prop: str) -> str:
    for meta in select(root, f'meta[property="{prop}"], meta[name="{prop}"]'):
        return (meta.get("content") or "").strip()
    return ""


def check_page(html: str | bytes, root: _Element) -> None:
    """Raise BadPageError for an archive's error page or a page cut off before its end."""
    text = html.decode("utf-8", "replace") if isinstance(html, bytes) else html
    title = first_text(root, "title")
    if "wayback machine" in title.lower() or any(marker in text[:20000] for marker in ARCHIVE_ERROR_MARKERS):
        raise BadPageError("archive_error", title or "Wayback Machine error page")
    if "</html>" not in text[-4000:].lower():
        raise BadPageError("truncated_html", f"{len(text)} characters, no closing </html>")


def missing(root: _Element, what: str) -> BadPageError:
    """The error for a page lacking `what` (e.g. no_title): a login wall when that is why."""
    if select(root, "input[type=password]") and LOGIN_WALL.search(text_of(root)):
        return BadPageError("login_wall", first_text(root, "title"))
    return BadPageError(what)
