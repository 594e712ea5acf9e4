"""procon.org: topic sites, portal headlines and quotes pages (archived), and Britannica's ProCon pages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.http import Response

from crawler import targets
from crawler.spiders.base import DebateSpider


class ProconSpider(DebateSpider):
    name = "procon"
    site = "procon"
    allowed_domains = targets.allowed_domains("procon")
    # The portal links every topic site; today it redirects to Britannica's ProCon index.
    live_start_urls = ("https://www.procon.org/",)
    follow_debate_links = True
    # Seconds between requests; raise it to the site's robots.txt Crawl-delay if that is larger.
    custom_settings = {"DOWNLOAD_DELAY": 3.0}

    def parse_listing(self, response: Response) -> Iterator[Any]:
        """A topic site's page: links to its Pro & Con Quotes pages.

        @fixture tests/fixtures/crawler/procon/topic-home.html
        @returns requests 2 2
        """
        yield from super().parse_listing(response)

    def parse_debate(self, response: Response) -> Iterator[Any]:
        """A 2015 "Pro & Con Quotes" page (saved from medicalmarijuana.procon.org).

        @fixture shared:procon/medicalmarijuana-view-answers-001325-2015-07.html
        @returns items 1 1
        @scrapes page record
        """
        yield from super().parse_debate(response)
