"""Downloader middleware: refuse vote, login and comment links whatever produced them."""

from __future__ import annotations

import logging

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.statscollectors import StatsCollector

from crawler.linkrules import forbidden_reason
from crawler.webarchive import original_url

log = logging.getLogger(__name__)


class ForbiddenLinksMiddleware:
    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ForbiddenLinksMiddleware:
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_request(self, request: Request, spider: Spider) -> None:
        # In archive mode judge the archived page's own URL, not the archive's wrapper.
        url, _ = original_url(request.url)
        reason = forbidden_reason(url)
        if reason:
            self.stats.inc_value("stancework/forbidden_links")
            log.info("not following %s: %s", request.url, reason)
            raise IgnoreRequest(reason)
