"""Item pipelines, one concern each, in order: store page → clean → validate → dedupe → ingest.

Each is thin: it calls a pure function or a service. Drops carry a reason, are counted in the crawl
stats (stancework/drop/<reason>) and recorded as Drop rows of the run.
"""

from __future__ import annotations

from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem
from scrapy.statscollectors import StatsCollector

from crawler import ingest, services
from crawler.items import DebateItem, ListingItem
from crawler.parsing.cleaning import clean_evidence, point_flag
from crawler.reporting import UNCHANGED

# Sites whose headlines are often just the body's first words (docs/design/construction.md, the debate sites).
HEADLINE_FILTER_SITES = frozenset({"debatewise"})


class _Pipeline:
    def __init__(self, crawler: Crawler) -> None:
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats: StatsCollector = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        return cls(crawler)

    def drop(self, item: DebateItem, spider: Spider, reason: str, detail: str = "") -> DropItem:
        self.stats.inc_value(f"stancework/drop/{reason}")
        services.record_drop(getattr(spider, "run_id", None), item.url, reason, detail)
        return DropItem(f"{reason}: {item.url} {detail}".strip())


class StorePagePipeline(_Pipeline):
    """Every fetched page, debate or listing, stored once by canonical URL and content hash."""

    def process_item(self, item: Any, spider: Spider) -> Any:
        if not isinstance(item, DebateItem | ListingItem):
            return item
        page = item.page
        url = item.url if isinstance(item, DebateItem) else page.url
        stored = services.store_page(
            getattr(spider, "run_id", None),
            page.site,
            url,
            page.body,
            page.fetched_url,
            page.status,
            page.archive_timestamp,
        )
        self.stats.inc_value("stancework/pages_new" if stored.created else "stancework/pages_unchanged")
        if isinstance(item, ListingItem):
            return item
        item.version_id = stored.version_id
        return item


class CleanPipeline(_Pipeline):
    """Evidence text from each point's body; the headline filter's flag where the site needs it."""

    def process_item(self, item: Any, spider: Spider) -> Any:
        if not isinstance(item, DebateItem) or item.record is None:
            return item
        filtered = item.record.site in HEADLINE_FILTER_SITES
        item.prepared = [
            ingest.PreparedPoint(
                point=point,
                evidence=clean_evidence(point.body),
                quality_flag=point_flag(point.headline, point.body, check_headline=filtered),
            )
            for point in item.record.points
        ]
        return item


class ValidatePipeline(_Pipeline):
    """Refuse pages that are not debates, and debates with nothing to ingest."""

    def process_item(self, item: Any, spider: Spider) -> Any:
        if not isinstance(item, DebateItem):
            return item
        if item.error:
            raise self.drop(item, spider, item.error, item.error_detail)
        record = item.record
        if record is None or not record.motion.strip():
            raise self.drop(item, spider, "no_title")
        if not record.points:
            raise self.drop(item, spider, "no_points")
        if not any(p.evidence for p in item.prepared):
            raise self.drop(item, spider, "no_evidence", "every point body cleaned to nothing")
        return item


class DedupePipeline(_Pipeline):
    """Drop a debate already ingested with the same content, or seen earlier in this crawl."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.seen: set[str] = set()

    def process_item(self, item: Any, spider: Spider) -> Any:
        if not isinstance(item, DebateItem) or item.record is None:
            return item
        fingerprint = ingest.fingerprint(item.record)
        if fingerprint in self.seen:
            raise self.drop(item, spider, "duplicate_in_run")
        self.seen.add(fingerprint)
        if ingest.is_unchanged(item.record):
            # Read again and found as it was: counted apart, never a drop (nothing is wrong with it).
            self.stats.inc_value(UNCHANGED)
            raise DropItem(f"unchanged: {item.url}")
        return item


class IngestPipeline(_Pipeline):
    """Write the debate into the corpus in one transaction; close the spider at its `--limit`."""

    def process_item(self, item: Any, spider: Spider) -> Any:
        if not isinstance(item, DebateItem) or item.record is None or item.version_id is None:
            return item
        limit = getattr(spider, "limit", None)
        if limit and self.stats.get_value("stancework/ingested", 0) >= limit:
            # Responses already downloaded when the limit closed the spider still arrive here.
            raise self.drop(item, spider, "over_limit", f"--limit {limit} reached")
        result = ingest.ingest_debate(
            item.record, item.prepared, item.version_id, getattr(spider, "run_id", None)
        )
        self.stats.inc_value("stancework/ingested")
        self.stats.inc_value(f"stancework/debates_{result.outcome}")
        self.stats.inc_value("stancework/points_new", result.new_points)
        if limit and self.stats.get_value("stancework/ingested", 0) >= limit and self.crawler.engine:
            self.crawler.engine.close_spider(spider, "closespider_limit")
        return item
