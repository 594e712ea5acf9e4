"""procon.org per-topic sites: 2015 "Pro & Con Quotes" pages and the 2016–19 "newblue" topic pages.

A quotes page has no headlines: each quote's first sentence stands in as the point's headline, the
quote is its body, and who said it (and where) goes to the point's references.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urljoin, urlsplit

from lxml.etree import _Element

from crawler.parsing.cleaning import split_sentences
from crawler.parsing.html import (
    canonical_url,
    check_page,
    first,
    first_text,
    load_html,
    missing,
    paragraphs,
    select,
    squash,
    text_of,
)
from crawler.parsing.records import DebateRecord, PointRecord, SideName

SITE = "procon"
DEBATE_URL = re.compile(
    r"^https?://[^/]*procon\.org/view\.(?:answers|resource)\.php\?.*(?:questionID|resourceID)=\d+"
)
ARCHIVE_PATTERNS = ("*.procon.org/view.answers.php*", "*.procon.org/view.resource.php*")
QUOTE_MARKS = "\"“”'‘’ "


def parse_debate(html: str | bytes, url: str) -> DebateRecord:
    """Extract one debate from either procon layout; BadPageError when there is none."""
    root = load_html(html)
    check_page(html, root)
    if select(root, ".newblue-pro-quote-box, .newblue-con-quote-box"):
        return _parse_newblue(root, url)
    header = _pro_header(root)
    if header is None:
        raise missing(root, "no_points")
    motion = first_text(root, "h2") or first_text(root, "p.title")
    if not motion:
        raise missing(root, "no_title")
    page_url = canonical_url(root, url)
    record = DebateRecord(
        site=SITE,
        url=page_url,
        motion=motion,
        theme=urlsplit(page_url).hostname or "",
        site_debate_id=_question_id(page_url),
        modified=_last_updated(root),
        layout="quotes",
    )
    row = header.getparent()
    for columns in row.itersiblings("tr"):
        cells = columns.findall("td")
        for side, cell in zip(("pro", "con"), cells, strict=False):
            record.points.extend(_quotes(cell, side))  # type: ignore[arg-type]
    return record


def _pro_header(root: _Element) -> _Element | None:
    for cell in select(root, "td"):
        if squash(cell.text_content()).upper().startswith("PRO (YES)"):
            return cell
    return None


def _quotes(cell: _Element, side: SideName) -> list[PointRecord]:
    points: list[PointRecord] = []
    answer_id, attribution = "", ""
    for child in cell:
        name = child.get("name") or ""
        if child.tag == "a" and name.startswith("answer-id-"):
            answer_id, attribution = name.removeprefix("answer-id-"), ""
        elif child.tag == "div" and "editortext" in (child.get("class") or ""):
            attribution = text_of(child)
        elif child.tag == "blockquote":
            quote = paragraphs(first(child, "div.editortext"))
            if not quote:
                continue
            sentences = split_sentences(quote[0])
            points.append(
                PointRecord(
                    side=side,
                    headline=sentences[0].lstrip(".… ").strip(QUOTE_MARKS) if sentences else "",
                    body=quote,
                    site_point_id=answer_id,
                    references=[r for r in (attribution, _source_line(child)) if r],
                )
            )
    return points


def _source_line(blockquote: _Element) -> str:
    """The date and source under a quote: the blockquote's last span (earlier ones are editor's notes)."""
    spans = select(blockquote, "span")
    return text_of(spans[-1]) if spans else ""


def _question_id(url: str) -> str:
    values = parse_qs(urlsplit(url).query).get("questionID", [""])
    return values[0].lstrip("0")


def _last_updated(root: _Element) -> str:
    match = re.search(r"Last updated on:\s*(.+)", first_text(root, ".lastupdated"))
    return match.group(1).strip() if match else ""


def _parse_newblue(root: _Element, url: str) -> DebateRecord:
    motion = first_text(root, "h1") or first_text(root, "title")
    if not motion:
        raise missing(root, "no_title")
    page_url = canonical_url(root, url)
    record = DebateRecord(
        site=SITE,
        url=page_url,
        motion=motion,
        intro=paragraphs(first(root, ".newblue-intro, #newblue-intro")),
        theme=urlsplit(page_url).hostname or "",
        layout="newblue",
    )
    for side in ("pro", "con"):
        for position, box in enumerate(select(root, f".newblue-{side}-quote-box"), start=1):
            headline = first(box, ".newblue-arguments-bolded-intro")
            head_text = text_of(headline)
            body = paragraphs(box)
            if body and head_text and body[0].startswith(head_text):
                # The bolded intro opens the first paragraph: the rest of it is body text.
                body[0] = body[0][len(head_text) :].strip()
            body = [p for p in body if p]
            point = PointRecord(
                side=side,  # type: ignore[arg-type]
                headline=head_text.rstrip(":").strip(),
                body=body,
                site_point_id=box.get("id") or f"{side}-{position}",
            )
            if point.body:
                record.points.append(point)
            else:
                record.warnings.append(f"{side} point {point.site_point_id} has no body")
    return record


def listing_links(html: str | bytes, url: str) -> tuple[list[str], list[str]]:
    """(debate pages, further listing pages) linked from a procon topic site's page."""
    root = load_html(html)
    debates: list[str] = []
    for a in select(root, "a[href]"):
        href = urljoin(url, a.get("href", ""))
        path = urlsplit(href).path
        answers = path.endswith("view.answers.php") and "questionID=" in href
        if answers or (path.endswith("view.resource.php") and "resourceID=" in href):
            debates.append(href)
    return list(dict.fromkeys(debates)), []
