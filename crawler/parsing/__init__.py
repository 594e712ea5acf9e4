"""Pure parsing of debate pages: HTML in, `DebateRecord` out. No Django, no Scrapy.

`parse_debate(site, html, url)` is what the spiders and `manage.py parse_page` both call.
"""

from __future__ import annotations

from collections.abc import Callable

from crawler.parsing import debatewise, idebate, procon
from crawler.parsing.records import BadPageError, DebateRecord, PointRecord

Parser = Callable[[str | bytes, str], DebateRecord]
Lister = Callable[[str | bytes, str], tuple[list[str], list[str]]]

PARSERS: dict[str, Parser] = {
    "idebate": idebate.parse_debate,
    "debatewise": debatewise.parse_debate,
    "procon": procon.parse_debate,
}
LISTERS: dict[str, Lister] = {
    "idebate": idebate.listing_links,
    "debatewise": debatewise.listing_links,
    "procon": procon.listing_links,
}
SITES = tuple(PARSERS)
MODULES = {"idebate": idebate, "debatewise": debatewise, "procon": procon}


class UnknownSiteError(KeyError):
    """A site name no parser handles."""


def parse_debate(site: str, html: str | bytes, url: str) -> DebateRecord:
    """The debate on a page; BadPageError (with a reason code) for a page that has none."""
    try:
        parser = PARSERS[site]
    except KeyError:
        raise UnknownSiteError(f"unknown site {site!r}; known: {', '.join(SITES)}") from None
    record = parser(html, url)
    if not record.points:
        raise BadPageError("no_points", record.url, url=record.url)
    return record


def listing_links(site: str, html: str | bytes, url: str) -> tuple[list[str], list[str]]:
    """(debate page URLs, further listing page URLs) linked from a listing page."""
    if site not in LISTERS:
        raise UnknownSiteError(f"unknown site {site!r}")
    return LISTERS[site](html, url)


def is_debate_url(site: str, url: str) -> bool:
    """Whether `url` has the shape of one of `site`'s debate pages (used on archive listings)."""
    return bool(MODULES[site].DEBATE_URL.match(url))


def archive_patterns(site: str) -> tuple[str, ...]:
    """CDX URL patterns that cover the site's debate pages."""
    return tuple(MODULES[site].ARCHIVE_PATTERNS)


__all__ = ["SITES", "BadPageError", "DebateRecord", "PointRecord", "listing_links", "parse_debate"]
