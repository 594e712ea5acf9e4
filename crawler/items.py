"""Scrapy items: dataclasses carrying a fetched page and, for debate pages, what was parsed from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crawler.parsing import DebateRecord


@dataclass
class FetchedPage:
    """A page as fetched. In archive mode `url` is the original URL and `fetched_url` the snapshot."""

    site: str
    url: str
    fetched_url: str
    body: bytes = field(repr=False)
    status: int = 200
    archive_timestamp: str = ""


@dataclass
class ListingItem:
    """A listing page: stored for provenance, never ingested."""

    page: FetchedPage


@dataclass
class DebateItem:
    page: FetchedPage
    record: DebateRecord | None = field(default=None, repr=False)
    # Set by the spider when the page is not a debate (BadPageError's reason and detail).
    error: str = ""
    error_detail: str = ""
    canonical_url: str = ""
    # Filled by the pipelines.
    version_id: int | None = None
    prepared: list[Any] = field(default_factory=list, repr=False)

    @property
    def url(self) -> str:
        return self.record.url if self.record else (self.canonical_url or self.page.url)
