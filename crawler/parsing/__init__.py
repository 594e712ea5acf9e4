"""Pure parsing of debate pages: HTML in, `DebateRecord` out. No Django, no Scrapy.

`parse_debate(site, html, url)` is what the spiders and `manage.py parse_page` both call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from crawler.parsing import debatewise, idebate, procon
from crawler.parsing.records import ArchivePattern, BadPageError, DebateRecord, PointRecord


@dataclass(frozen=True)
class SiteParsing:
    """What one site's module provides: its page parser, its listing reader and its URL shapes."""

    parse_debate: Callable[[str | bytes, str], DebateRecord]
    listing_links: Callable[[str | bytes, str], tuple[list[str], list[str]]]
    debate_url: re.Pattern[str]
    archive_patterns: tuple[ArchivePattern, ...]


REGISTRY: dict[str, SiteParsing] = {
    module.SITE: SiteParsing(
        module.parse_debate, module.listing_links, module.DEBATE_URL, module.ARCHIVE_PATTERNS
    )
    for module in (idebate, debatewise, procon)
}
SITES = tuple(REGISTRY)


class UnknownSiteError(KeyError):
    """A site name no parser handles."""


def _site(site: str) -> SiteParsing:
    try:
        return REGISTRY[site]
    except KeyError:
        raise UnknownSiteError(f"unknown site {site!r}; known: {', '.join(SITES)}") from None


def parse_debate(site: str, html: str | bytes, url: str) -> DebateRecord:
    """The debate on a page; BadPageError (with a reason code) for a page that has none."""
    record = _site(site).parse_debate(html, url)
    if not record.points:
        raise BadPageError("no_points", record.url, url=record.url)
    return record


def listing_links(site: str, html: str | bytes, url: str) -> tuple[list[str], list[str]]:
    """(debate page URLs, further listing page URLs) linked from a listing page."""
    return _site(site).listing_links(html, url)


def is_debate_url(site: str, url: str) -> bool:
    """Whether `url` has the shape of one of `site`'s debate pages (used on archive listings)."""
    return bool(_site(site).debate_url.match(url))


def archive_patterns(site: str) -> tuple[ArchivePattern, ...]:
    """CDX URL patterns that cover the site's debate pages."""
    return _site(site).archive_patterns


__all__ = [
    "SITES",
    "ArchivePattern",
    "BadPageError",
    "DebateRecord",
    "PointRecord",
    "listing_links",
    "parse_debate",
]
