"""The shared spider: discover debates from listing pages (live) or from the Wayback CDX (archive).

Site spiders only name their site, start pages and delay; extraction is the pure parser's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar, Self
from urllib.parse import urlsplit

import scrapy
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from crawler import targets
from crawler.items import DebateItem, FetchedPage, ListingItem
from crawler.linkrules import forbidden_reason
from crawler.middlewares import allowed_origins
from crawler.parsing import BadPageError, archive_patterns, is_debate_url, listing_links, parse_debate
from crawler.webarchive import WAYBACK, CdxError, cdx_query, parse_cdx, snapshot_url, strip_archive_markup

# A shared crawl's requests in flight per process: one, so a request taking the site's slot in
# SharedPoliteness is the next to go out; the processes together keep the pace.
SHARED_CONCURRENCY = 1


class DebateSpider(scrapy.Spider):
    site: ClassVar[str] = ""
    allowed_domains: list[str] = []
    live_start_urls: ClassVar[tuple[str, ...]] = ()
    # Whether a debate page's own links lead to more debates (procon's topic sites link their
    # quotes pages); elsewhere only listings are followed.
    follow_debate_links: ClassVar[bool] = False

    def __init__(
        self,
        run_id: int | str | None = None,
        archive: str = "",
        start_urls: str | list[str] = "",
        limit: int | str | None = None,
        resumed_from: int | None = None,
        shared: bool = False,
        helper_id: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        # A shared crawl (its queue in Redis); helper_id: this process joined one (CrawlHelper).
        self.shared = bool(shared)
        self.helper_id = helper_id
        if self.shared:
            # The downloader reads these when it makes the site's slot (before any signal handler
            # could set them): SharedPoliteness spaces the requests across processes instead.
            self.download_delay = 0.0
            self.max_concurrent_requests = SHARED_CONCURRENCY
        # The cleanly stopped run whose saved queue this crawl continues (recorded on the run).
        self.resumed_from = resumed_from
        # Debates to ingest before closing (`--limit`); listing pages and drops do not count.
        self.limit = int(limit) if limit is not None and limit != "" else None
        self.run_id = int(run_id) if run_id is not None and run_id != "" else None
        self.archive = archive.split(":", 1) if archive else []
        urls = start_urls.split(",") if isinstance(start_urls, str) else list(start_urls)
        self.start_urls = [u.strip() for u in urls if u.strip()] or list(self.live_start_urls)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        # Scrapy's offsite check lets the hosts of the crawl's own origins through too (its saved-pages
        # server, the configured archive); CrawlTargets holds each to its exact origin.
        extra = [urlsplit(o).hostname or "" for o in allowed_origins(crawler.settings)]
        spider.allowed_domains = [*targets.allowed_domains(spider.site), *filter(None, extra)]
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for request in self.start_requests():
            yield request

    def start_requests(self) -> Iterator[scrapy.Request]:
        if self.archive:
            start, end = self.archive
            for pattern in archive_patterns(self.site):
                yield scrapy.Request(
                    cdx_query(pattern.url, start, end, base=self.wayback, original=pattern.original),
                    callback=self.parse_cdx,
                    errback=self.request_failed,
                    cb_kwargs={"pattern": pattern.url, "original": pattern.original},
                )
            return
        # The start URLs go through the dupefilter, unlike Scrapy's default: a shared crawl's is shared,
        # so only one process fetches them; a resumed crawl's is the one its stopped run saved, so a
        # listing fetched before the stop is not fetched again (its links are in the saved queue). A
        # fresh crawl's is empty (crawling.prepare_job_dir), so it fetches them.
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse_start, errback=self.request_failed)

    @property
    def wayback(self) -> str:
        return str(self.settings.get("STANCEWORK_WAYBACK_URL") or WAYBACK)

    def _page(self, response: Response) -> FetchedPage:
        original = response.meta.get("original_url", response.url)
        body = (
            strip_archive_markup(response.body) if response.meta.get("archive_timestamp") else response.body
        )
        return FetchedPage(
            site=self.site,
            url=original,
            fetched_url=response.url,
            body=body,
            status=response.status,
            archive_timestamp=response.meta.get("archive_timestamp", ""),
        )

    def _debate_item(self, page: FetchedPage) -> DebateItem:
        """The page's debate, or an item carrying why it has none (the pipelines drop it)."""
        try:
            record = parse_debate(self.site, page.body, page.url)
        except BadPageError as error:
            return DebateItem(
                page=page, error=error.reason, error_detail=error.detail, canonical_url=error.url
            )
        for warning in record.warnings:
            self.logger.info("%s: %s", page.url, warning)
        return DebateItem(page=page, record=record)

    def parse_start(self, response: Response, follow: bool = True) -> Iterator[Any]:
        """A page is a debate when it has a debate title, else a listing (followed unless `follow` is off)."""
        page = self._page(response)
        item = self._debate_item(page)
        if item.error != "no_title":
            yield item
            if follow and self.follow_debate_links:
                yield from self._follow_links(response, page)
        elif follow:
            yield ListingItem(page=page)
            yield from self._follow_links(response, page)
        else:
            yield ListingItem(page=page)

    def parse_listing(self, response: Response) -> Iterator[Any]:
        page = self._page(response)
        yield ListingItem(page=page)
        yield from self._follow_links(response, page)

    def parse_debate(self, response: Response) -> Iterator[Any]:
        page = self._page(response)
        yield self._debate_item(page)
        if self.follow_debate_links and not page.archive_timestamp:
            yield from self._follow_links(response, page)

    def _follow_links(self, response: Response, page: FetchedPage) -> Iterator[scrapy.Request]:
        debates, listings = listing_links(self.site, page.body, page.url)
        for url in debates:
            if not forbidden_reason(url):
                yield response.follow(url, callback=self.parse_debate, errback=self.request_failed)
        for url in listings:
            if not forbidden_reason(url):
                yield response.follow(url, callback=self.parse_listing, errback=self.request_failed)

    def request_failed(self, failure: Failure) -> None:
        """A request given up on after its retries. A connection that failed (refused, reset, timed
        out, no such host) is counted, and the run ends "finished with errors" saying how many; an
        HTTP error answer or a refused link is an answer, and only logged, as Scrapy does."""
        if failure.check(HttpError, IgnoreRequest):
            self.logger.info("%s: %s", failure.request.url, failure.getErrorMessage())  # type: ignore[attr-defined]
            return
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"stancework/failed_request/{failure.type.__name__}")  # type: ignore[union-attr]
        self.logger.warning("gave up on %s: %s", failure.request.url, failure.getErrorMessage())  # type: ignore[attr-defined]

    def parse_cdx(self, response: Response, pattern: str, original: str = "") -> Iterator[scrapy.Request]:
        try:
            captures, resume_key = parse_cdx(response.text)
        except CdxError as error:
            self.logger.error("CDX answer for %s unusable: %s", pattern, error)
            return
        for capture in captures:
            if is_debate_url(self.site, capture.original) and not forbidden_reason(capture.original):
                # The CDX already lists every capture: archived listings are stored, not followed.
                yield scrapy.Request(
                    snapshot_url(capture.timestamp, capture.original, base=self.wayback),
                    callback=self.parse_start,
                    errback=self.request_failed,
                    cb_kwargs={"follow": False},
                    meta={"original_url": capture.original, "archive_timestamp": capture.timestamp},
                )
        if resume_key:
            start, end = self.archive
            yield scrapy.Request(
                cdx_query(pattern, start, end, resume_key=resume_key, base=self.wayback, original=original),
                callback=self.parse_cdx,
                errback=self.request_failed,
                cb_kwargs={"pattern": pattern, "original": original},
            )
