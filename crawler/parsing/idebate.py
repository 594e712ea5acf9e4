"""idebate: the Drupal Debatabase (idebate.org, ~2012–2019) and the idebate.net layout (2020–).

Selectors follow docs/design/construction.md (the debate sites). Pure: lxml only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from lxml.etree import _Element

from crawler.parsing import html as markup
from crawler.parsing.cleaning import reference_lines
from crawler.parsing.records import ArchivePattern, DebateRecord, PointRecord, SideName

SITE = "idebate"
# "improve this": a link to the login page that Drupal appends to every text field.
LOGIN_PARAGRAPH = "p:has(a[href*='user/login'])"
# The marker: "COUNTERPOINT" in capitals opening a paragraph, or a paragraph that is only the word.
COUNTERPOINT = re.compile(r"^(?:COUNTERPOINT\b\s*[:.–-]?\s*|(?i:counterpoint)\s*:?\s*$)")
NET_DEBATE = re.compile(r"~b(\d+)/?$")
NET_CATEGORY = re.compile(r"/debatabase/[^/]+~c\d+/?$")
# Drupal debate URLs vary in depth (/debatabase/<slug>, /debatabase/<theme>/<slug>, ...), so any
# query-less /debatabase/ path may be one: the page itself decides. idebate.net debates end in ~b<id>/.
DEBATE_URL = re.compile(
    r"^https?://(?:[^/]*idebate\.org/debatabase/[^?#]+|(?:www\.)?idebate\.net/[^/?#]+~b\d+/?)$"
)
ARCHIVE_PATTERNS = (
    # idebate.org's Drupal Debatabase; archive.idebate.org kept a copy after the move.
    ArchivePattern("idebate.org/debatabase/*"),
    ArchivePattern("archive.idebate.org/debatabase/*"),
    # idebate.net debates sit at the root as /<slug>~b<id>/.
    ArchivePattern("idebate.net/*", original=r"https?://(?:www\.)?idebate\.net/[^/?#]+~b\d+/?"),
)


@dataclass(frozen=True)
class DrupalSide:
    side: SideName
    points: str
    headline: str
    body: str
    counterpoint: str


DRUPAL_SIDES = (
    DrupalSide(
        "pro",
        "#debatabase-points-1 .field-collection-item-field-point-for",
        ".field-name-field-title-point-for .field-item",
        ".field-name-field-point-point-for .field-item",
        ".field-name-field-counterpoint-point-for .field-item",
    ),
    DrupalSide(
        "con",
        "#debatabase-points-2 .field-collection-item-field-point-against",
        ".field-name-field-title .field-item",
        ".field-name-field-point .field-item",
        ".field-name-field-counterpoint .field-item",
    ),
)


def parse_debate(html: str | bytes, url: str) -> DebateRecord:
    """Extract one debate from either idebate layout; BadPageError when there is none."""
    root = markup.load_html(html)
    markup.check_page(html, root)
    if markup.first(root, "div.debatabase-title") is not None:
        return _parse_drupal(root, url)
    if markup.first(root, "h1.blog-post__title") is not None:
        return _parse_net(root, url)
    raise markup.missing(root, "no_title")


def _parse_drupal(root: _Element, url: str) -> DebateRecord:
    page_url = markup.canonical_url(root, url)
    motion = markup.first_text(root, "div.debatabase-title")
    if not motion:
        raise markup.missing(root, "no_title")
    record = DebateRecord(
        site=SITE,
        url=page_url,
        motion=motion,
        intro=markup.paragraphs(markup.first(root, "div.debatabase-description")),
        theme=_drupal_theme(page_url),
        site_debate_id=_node_id(root),
        published=markup.meta_content(root, "article:published_time"),
        modified=markup.meta_content(root, "article:modified_time"),
        bibliography=markup.paragraphs(markup.first(root, ".field-name-field-bibliography .field-item")),
        layout="drupal",
    )
    for side in DRUPAL_SIDES:
        for element in markup.select(root, side.points):
            point = _drupal_point(element, side)
            if point.body:
                record.points.append(point)
            else:
                # A title with no argument under it gives no evidence: the corpus authors left
                # such points out too.
                record.warnings.append(f"{side.side} point {point.site_point_id or '?'} has no body")
    return record


def _drupal_point(element: _Element, side: DrupalSide) -> PointRecord:
    body = _field_paragraphs(markup.first(element, side.body))
    counterpoint = _field_paragraphs(markup.first(element, side.counterpoint))
    about = element.get("about") or ""
    return PointRecord(
        side=side.side,
        headline=markup.text_of(markup.first(element, side.headline)),
        body=body,
        counterpoint=counterpoint,
        site_point_id=about.rstrip("/").rsplit("/", 1)[-1],
        references=reference_lines(body + counterpoint),
    )


def _field_paragraphs(field: _Element | None) -> list[str]:
    """A field's paragraphs without the "improve this" login link Drupal appends at its end.

    Only the trailing one is the site's footer; the same words pasted inside a text are content.
    """
    found = markup.paragraphs(field)
    links = markup.select(field, LOGIN_PARAGRAPH) if field is not None else []
    if found and links and found[-1] == markup.text_of(links[-1]):
        found.pop()
    return found


def _drupal_theme(url: str) -> str:
    parts = [part for part in urlsplit(url).path.split("/") if part]
    return parts[1] if len(parts) >= 3 and parts[0] == "debatabase" else ""


def _node_id(root: _Element) -> str:
    shortlink = markup.first(root, "link[rel=shortlink]")
    href = shortlink.get("href", "") if shortlink is not None else ""
    match = re.search(r"/node/(\d+)", href)
    return match.group(1) if match else ""


def _parse_net(root: _Element, url: str) -> DebateRecord:
    page_url = markup.canonical_url(root, url)
    motion = markup.first_text(root, "h1.blog-post__title")
    if not motion:
        raise markup.missing(root, "no_title")
    match = NET_DEBATE.search(urlsplit(page_url).path)
    record = DebateRecord(
        site=SITE,
        url=page_url,
        motion=motion,
        intro=markup.paragraphs(markup.first(root, ".blog-post__intro, .blog-post__description")),
        site_debate_id=match.group(1) if match else "",
        theme=markup.first_text(root, ".blog-post__category, .breadcrumbs__item--category"),
        published=markup.meta_content(root, "article:published_time"),
        modified=markup.meta_content(root, "article:modified_time"),
        layout="idebate.net",
    )
    for side, marker in (("pro", "div.points-vote--for"), ("con", "div.points-vote--against")):
        vote = markup.first(root, marker)
        accordion = _next_accordion(vote) if vote is not None else None
        if accordion is None:
            continue
        for position, item in enumerate(markup.select(accordion, "div.accordion__item")):
            body, counterpoint = split_counterpoint(
                [markup.text_of(p) for p in markup.select(item, "div.accordion__body p")]
            )
            point = PointRecord(
                side=side,  # type: ignore[arg-type]
                headline=markup.text_of(markup.first(item, "h4.accordion__subtitle")),
                body=body,
                counterpoint=counterpoint,
                site_point_id=item.get("data-id") or item.get("id") or f"{side}-{position + 1}",
            )
            point.references = reference_lines(point.body + point.counterpoint)
            if point.body:
                record.points.append(point)
            else:
                record.warnings.append(f"{side} point {point.site_point_id} has no body")
    return record


def split_counterpoint(texts: list[str]) -> tuple[list[str], list[str]]:
    """(point, counterpoint) paragraphs of an idebate.net accordion body.

    idebate.net prints the counterpoint in the same body after a "COUNTERPOINT" marker, either a
    paragraph of its own or the opening word of the counterpoint's first paragraph.
    """
    for index, text in enumerate(texts):
        marker = COUNTERPOINT.match(text)
        if marker:
            rest = [text[marker.end() :], *texts[index + 1 :]]
            return [t for t in texts[:index] if t], [t for t in rest if t]
    return [t for t in texts if t], []


def _next_accordion(element: _Element) -> _Element | None:
    """The first `div.accordion` after the vote box in document order."""
    for following in element.itersiblings():
        if following.tag == "div" and "accordion" in (following.get("class") or "").split():
            return following
        nested = markup.select(following, "div.accordion")
        if nested:
            return nested[0]
    parent = element.getparent()
    return _next_accordion(parent) if parent is not None else None


def listing_links(html: str | bytes, url: str) -> tuple[list[str], list[str]]:
    """(debate URLs, further listing pages) linked from a theme or category listing page."""
    root = markup.load_html(html)
    debates = [
        urljoin(url, a.get("href", "")) for a in markup.select(root, "div.debatabase-theme-listing-title a")
    ]
    # Drupal's pager: ?page=N links of the same listing.
    listings = [urljoin(url, a.get("href", "")) for a in markup.select(root, ".pager a[href*='page=']")]
    for a in markup.select(root, "a[href]"):
        href = urljoin(url, a.get("href", ""))
        path = urlsplit(href).path
        if NET_DEBATE.search(path):
            debates.append(href)
        elif ("page=" in urlsplit(href).query and path == urlsplit(url).path) or NET_CATEGORY.search(path):
            listings.append(href)
    return _unique(debates), _unique(listings)


def _unique(urls: list[str]) -> list[str]:
    return list(dict.fromkeys(u for u in urls if u))
