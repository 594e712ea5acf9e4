"""debatewise.org: the wiki layout (until ~2018) and the current one (since ~2019)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.http import Response

from crawler import targets
from crawler.spiders.base import DebateSpider


class DebatewiseSpider(DebateSpider):
    name = "debatewise"
    site = "debatewise"
    allowed_domains = targets.allowed_domains("debatewise")
    live_start_urls = ("https://debatewise.org/page/1/",)
    # Seconds between requests; raise it to the site's robots.txt Crawl-delay if that is larger.
    custom_settings = {"DOWNLOAD_DELAY": 3.0}

    def parse_listing(self, response: Response) -> Iterator[Any]:
        """The home index: debates under `.hometitle`, older ones on `/page/N/`.

        @fixture tests/fixtures/crawler/debatewise/home-page-1.html
        @returns requests 3 3
        """
        yield from super().parse_listing(response)

    def parse_debate(self, response: Response) -> Iterator[Any]:
        """A pre-2019 wiki debate page (fixture built from docs/design/construction.md, not saved from the
        site).

        @fixture tests/fixtures/crawler/debatewise/wiki-debate.html
        @returns items 1 1
        @scrapes page record
        """
        yield from super().parse_debate(response)
