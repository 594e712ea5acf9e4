"""debatewise.org: the wiki layout (until ~2018, `/debates/<id>-<slug>/`) and today's (`/<id>-<slug>/`).

No saved page of either era exists; the selectors follow the layouts docs/design/construction.md describes.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from lxml.etree import _Element

from crawler.parsing import html as markup
from crawler.parsing.cleaning import reference_lines
from crawler.parsing.records import ArchivePattern, DebateRecord, PointRecord, SideName
from crawler.parsing.sentences import split_sentences

SITE = "debatewise"
# Paths of the site that are not debates, though shaped like today's `/<slug>/` ones.
NOT_DEBATES = (
    "about|contact|privacy-policy|terms|terms-and-conditions|cookie-policy|faq|help|search|sitemap|"
    "page|category|categories|tag|tags|author|feed|comments|login|logout|register|wp-admin|wp-login\\.php|"
    "wp-content|wp-includes|wp-json|debates|topics|submit-a-debate|my-account"
)
# Both eras, each with and without the numeric id: /debates/<id>-<slug>/ and /debates/<slug>/ until
# ~2018 (10 of the 395 debates in the 2018 crawl had no id), /<id>-<slug>/ and /<slug>/ since ~2019.
DEBATE_PATH = re.compile(rf"^/(?:debates/)?(?!(?:{NOT_DEBATES})/?$)(?:(\d+)-)?[a-z0-9][^/?#]*/?$", re.I)
DEBATE_URL = re.compile(
    rf"^https?://(?:www\.)?debatewise\.org/(?:debates/)?(?!(?:{NOT_DEBATES})/?$)[a-z0-9][^/?#]*/?$", re.I
)
# One prefix query covers both eras (`/debates/…` is under `/`); today's debates sit at the root
# among the site's other pages, so the server keeps only the captures shaped like a debate.
ARCHIVE_PATTERNS = (ArchivePattern("debatewise.org/*", original=DEBATE_URL.pattern[1:-1]),)
MARKER = re.compile(r"^(yes|no)\s+because\b[\s.:,…-]*", re.I)


def parse_debate(html: str | bytes, url: str) -> DebateRecord:
    """Extract one debate from either debatewise layout; BadPageError when there is none."""
    root = markup.load_html(html)
    markup.check_page(html, root)
    page_url = markup.canonical_url(root, url)
    match = DEBATE_PATH.match(urlsplit(page_url).path)
    record = DebateRecord(
        site=SITE,
        url=page_url,
        motion="",
        site_debate_id=match.group(1) if match else "",
        published=markup.meta_content(root, "article:published_time"),
        modified=markup.meta_content(root, "article:modified_time"),
    )
    if markup.first(root, "#wiki-page-wrapper h1") is not None:
        record.motion, record.layout = markup.first_text(root, "#wiki-page-wrapper h1"), "wiki"
        record.points = _wiki_points(root)
    else:
        record.motion, record.layout = markup.first_text(root, "h1"), "markers"
        record.intro, record.points = _marker_points(root)
    if not record.motion:
        raise markup.missing(root, "no_title")
    if not record.points:
        raise markup.missing(root, "no_points")
    return record


def _wiki_points(root: _Element) -> list[PointRecord]:
    points = []
    for link in markup.select(root, ".pointTitles a[href^='#']"):
        anchor = link.get("href", "")[1:]
        side: SideName = "pro" if anchor.lower().startswith("yes") else "con"
        target = _anchor_target(root, anchor)
        argument = _argument_after(target) if target is not None else None
        body = markup.paragraphs(argument)
        points.append(
            PointRecord(
                side=side,
                headline=markup.text_of(link),
                body=body,
                site_point_id=anchor,
                references=reference_lines(body),
            )
        )
    return [p for p in points if p.body]


def _anchor_target(root: _Element, anchor: str) -> _Element | None:
    found = root.xpath("//*[@id=$name or @name=$name]", name=anchor)
    return found[0] if found else None


def _argument_after(target: _Element) -> _Element | None:
    """The `.pointArgument` inside the anchor's element, or the first one after it."""
    inside = markup.select(target, ".pointArgument")
    if inside:
        return inside[0]
    for following in target.itersiblings():
        if "pointArgument" in (following.get("class") or "").split():
            return following
        nested = markup.select(following, ".pointArgument")
        if nested:
            return nested[0]
    return None


def _marker_points(root: _Element) -> tuple[list[str], list[PointRecord]]:
    """Paragraphs opening "Yes because…"/"No because…" start a point; its first sentence is the headline."""
    content = next(
        (
            found
            for found in (markup.first(root, s) for s in (".entry-content", "article", "body"))
            if found is not None
        ),
        root,
    )
    blocks = [p for p in markup.paragraphs(content) if p]
    intro: list[str] = []
    points: list[PointRecord] = []
    for block in blocks:
        marker = MARKER.match(block)
        if marker:
            side: SideName = "pro" if marker.group(1).lower() == "yes" else "con"
            rest = block[marker.end() :]
            sentences = split_sentences(rest)
            headline = sentences[0] if sentences else rest
            remainder = rest[len(headline) :].strip()
            points.append(PointRecord(side=side, headline=headline, body=[remainder] if remainder else []))
            points[-1].site_point_id = f"{side}-{sum(1 for p in points if p.side == side)}"
        elif points:
            points[-1].body.append(block)
        else:
            intro.append(block)
    for point in points:
        point.references = reference_lines(point.body)
    return intro, [p for p in points if p.body]


def listing_links(html: str | bytes, url: str) -> tuple[list[str], list[str]]:
    """(debate URLs, further index pages) from the home page index `/page/N/`."""
    root = markup.load_html(html)
    debates = [urljoin(url, a.get("href", "")) for a in markup.select(root, ".hometitle a")]
    listings = []
    for a in markup.select(root, "a[href]"):
        href = urljoin(url, a.get("href", ""))
        if re.search(r"/page/\d+/?$", urlsplit(href).path):
            listings.append(href)
    # By path: a saved or local copy of the index keeps the paths, not the host.
    debates = [u for u in debates if DEBATE_PATH.match(urlsplit(u).path) and not urlsplit(u).query]
    return list(dict.fromkeys(debates)), list(dict.fromkeys(listings))
