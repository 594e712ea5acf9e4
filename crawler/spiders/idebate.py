"""idebate.org Debatabase (Drupal; live until ~2019, then only in web archives) and idebate.net."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.http import Response

from crawler import targets
from crawler.spiders.base import DebateSpider


class IdebateSpider(DebateSpider):
    name = "idebate"
    site = "idebate"
    allowed_domains = targets.allowed_domains("idebate")
    live_start_urls = ("https://idebate.net/debatabase/",)
    # Seconds between requests; raise it to the site's robots.txt Crawl-delay if that is larger.
    custom_settings = {"DOWNLOAD_DELAY": 2.0}

    def parse_listing(self, response: Response) -> Iterator[Any]:
        """A theme listing: its debates and its next pages, never its vote or login links.

        @fixture tests/fixtures/crawler/idebate/listing-health.html
        @returns requests 3 3
        @returns items 1 1
        """
        yield from super().parse_listing(response)

    def parse_debate(self, response: Response) -> Iterator[Any]:
        """A Drupal Debatabase page (saved from idebate.org in 2018).

        @fixture shared:idebate/pages/debate-media-and-good-government-house-would-regulate-press.html
        @returns items 1 1
        @returns requests 0 0
        @scrapes page record
        """
        yield from super().parse_debate(response)
