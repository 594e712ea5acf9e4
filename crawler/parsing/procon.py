"""procon.org: every URL form its debates took, which layout reads a page, and its listings.

The layouts themselves are in `procon_layouts`. A quote has no headline: its first real sentence
stands in, the quote is the body, and who said it (and where) goes to the point's references.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qs, urljoin, urlsplit

from lxml.etree import _Element

from crawler.parsing import procon_layouts
from crawler.parsing.html import (
    canonical_url,
    check_page,
    first,
    first_text,
    load_html,
    missing,
    paragraphs,
    select,
    text_of,
)
from crawler.parsing.records import ArchivePattern, DebateRecord, PointRecord

SITE = "procon"
# A topic site is <topic>.procon.org; www.procon.org is the portal that lists them.
TOPIC_HOST = r"(?!www\.)[a-z0-9][a-z0-9-]*\.procon\.org"
ANY_HOST = r"(?:[a-z0-9-]+\.)*procon\.org"
# Every form a procon debate page took, by era. The PERSPECTRUM authors' 2018 crawl took topic-site
# roots and headline.php pages; docs/design/construction.md names the quotes pages; public scrapers show
# the rest.
URL_FORMS: dict[str, str] = {
    # 2016–2020 topic-site home: the debate itself (newblue boxes, later div.argument-container).
    "topic_root": rf"https?://{TOPIC_HOST}/?(?:index\.php)?",
    # 2018 portal debates on www.procon.org.
    "headline": rf"https?://{ANY_HOST}/headline\.php\?(?:[^#]*&)?headlineID=\d+[^#]*",
    # ~2008–2019 "Pro & Con Quotes" and resource pages (the 2019–20 "Top 10" pages are resources).
    "answers": rf"https?://{ANY_HOST}/view\.answers\.php\?(?:[^#]*&)?questionID=\d+[^#]*",
    "resource": rf"https?://{ANY_HOST}/view\.resource\.php\?(?:[^#]*&)?resourceID=\d+[^#]*",
    # 2020 WordPress topic sites: the Top 10 page got a path of its own.
    "top10": rf"https?://{TOPIC_HOST}/top-10-pro-con-arguments/?",
    # Since Britannica took ProCon over, procon.org redirects to its pages.
    "britannica": r"https?://(?:www\.)?britannica\.com/procon/[a-z0-9][a-z0-9-]*/?",
}
DEBATE_URL = re.compile("^(?:" + "|".join(URL_FORMS.values()) + ")$", re.I)
# The forms a topic site's own pages link by path.
SITE_PATH = re.compile(
    r"/(?:view\.answers\.php\?(?:[^#]*&)?questionID=\d+|view\.resource\.php\?(?:[^#]*&)?resourceID=\d+|"
    r"headline\.php\?(?:[^#]*&)?headlineID=\d+|top-10-pro-con-arguments/?$)",
    re.I,
)
ARCHIVE_PATTERNS = (
    # Every capture of a topic host's root, and no other page of the domain.
    ArchivePattern("*.procon.org", original=URL_FORMS["topic_root"]),
    ArchivePattern("procon.org/headline.php*"),
    ArchivePattern("*.procon.org", original=URL_FORMS["answers"]),
    ArchivePattern("*.procon.org", original=URL_FORMS["resource"]),
    ArchivePattern("*.procon.org", original=URL_FORMS["top10"]),
    ArchivePattern("britannica.com/procon/*"),
)
# Portal pages that only list debates: procon.org's home and Britannica's ProCon index.
PORTAL_LISTING = re.compile(
    r"^https?://(?:www\.)?(?:procon\.org/?(?:index\.php)?|britannica\.com/procon/?)$", re.I
)
# Tried in order: the first layout whose structure is on the page reads it.
LAYOUTS: tuple[tuple[str, Callable[[_Element], list[PointRecord] | None]], ...] = (
    ("argument-container", procon_layouts.argument_containers),
    ("top10", procon_layouts.top10_columns),
    ("newblue", procon_layouts.quote_boxes),
    ("quotes", procon_layouts.quotes_table),
)
# Headings that name the page's format rather than its question.
GENERIC_HEADING = re.compile(r"^(?:top\s*10\s*)?pro\s*(?:&|and)\s*con\s*(?:arguments|quotes)?$", re.I)


def parse_debate(html: str | bytes, url: str) -> DebateRecord:
    """Extract one debate from any procon layout; BadPageError when there is none."""
    root = load_html(html)
    check_page(html, root)
    layout, points = _read_points(root)
    motion = _motion(root, layout)
    if not motion:
        raise missing(root, "no_title")
    page_url = canonical_url(root, url)
    record = DebateRecord(
        site=SITE,
        url=page_url,
        motion=motion,
        intro=paragraphs(first(root, ".newblue-intro, #newblue-intro")),
        theme=urlsplit(page_url).hostname or "",
        site_debate_id=_page_id(page_url),
        modified=_last_updated(root),
        layout=layout,
    )
    for point in points:
        if point.body:
            record.points.append(point)
        else:
            record.warnings.append(f"{point.side} point {point.site_point_id} has no body")
    return record


def _read_points(root: _Element) -> tuple[str, list[PointRecord]]:
    for layout, read_points in LAYOUTS:
        points = read_points(root)
        if points is not None:
            return layout, points
    raise missing(root, "no_points")


def _motion(root: _Element, layout: str) -> str:
    """The debate's question: the first heading that is not just the page format's name."""
    if layout == "quotes":
        return first_text(root, "h2") or first_text(root, "p.title")
    for element in select(root, "h1, h2"):
        heading = text_of(element)
        if heading and not GENERIC_HEADING.match(heading):
            return heading
    return first_text(root, "title")


def _page_id(url: str) -> str:
    query = parse_qs(urlsplit(url).query)
    for key in ("questionID", "resourceID", "headlineID"):
        if query.get(key):
            return query[key][0].lstrip("0")
    return ""


def _last_updated(root: _Element) -> str:
    match = re.search(r"Last updated on:\s*(.+)", first_text(root, ".lastupdated"))
    return match.group(1).strip() if match else ""


def listing_links(html: str | bytes, url: str) -> tuple[list[str], list[str]]:
    """(debate pages, further listing pages) linked from a procon page.

    The portal links topic sites and headline pages; a topic site links its quotes and resource
    pages; Britannica's ProCon index links its debates. Any of these forms is a debate page.
    """
    root = load_html(html)
    debates: list[str] = []
    listings: list[str] = []
    here = urlsplit(url).netloc
    for a in select(root, "a[href]"):
        href = urljoin(url, (a.get("href") or "").strip())
        parts = urlsplit(href)
        # A link within the page's own site may be read by its path alone: a saved or local copy
        # of a topic site keeps its paths but not its host.
        same_site = parts.netloc == here and SITE_PATH.search(
            parts.path + ("?" + parts.query if parts.query else "")
        )
        if DEBATE_URL.match(href) or same_site:
            debates.append(href)
        elif PORTAL_LISTING.match(href):
            listings.append(href)
    return list(dict.fromkeys(debates)), list(dict.fromkeys(listings))
