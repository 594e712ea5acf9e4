"""Downloader middlewares: refuse addresses off the crawl's own hosts, and vote, login and comment
links, whatever produced them; send the
requests for a local copy of saved pages to wherever it listens; and in a shared crawl, keep one
politeness delay per site across every process of the crawl."""

from __future__ import annotations

import logging
import time
from typing import cast

import redis
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.settings import BaseSettings
from scrapy.statscollectors import StatsCollector
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import deferLater

from crawler.linkrules import forbidden_reason
from crawler.targets import FIXTURE_META, origin, refusal
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


class CrawlTargets:
    """Refuse every request off the crawl's allowed origins (crawler.targets): its site's hosts, the
    web archive, its own saved-pages server (``STANCEWORK_LOCAL_ROUTES``), the configured Wayback
    address and an operator's ``STANCEWORK_EXTRA_ORIGINS``. First in line, so a start URL, a saved
    queue or a redirect naming an internal service never leaves this process."""

    def __init__(self, origins: list[str], stats: StatsCollector) -> None:
        self.origins = origins
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlTargets:
        assert crawler.stats is not None
        return cls(allowed_origins(crawler.settings), crawler.stats)

    def process_request(self, request: Request, spider: Spider) -> None:
        if request.meta.get(FIXTURE_META) and request.url.startswith("file://"):
            return  # `scrapy check`'s saved page, read offline (crawler.contracts)
        reason = refusal(request.url, str(getattr(spider, "site", spider.name)), self.origins)
        if reason:
            self.stats.inc_value("stancework/refused_targets")
            log.warning("not requesting %s: %s", request.url[:200], reason)
            raise IgnoreRequest(reason)


def allowed_origins(settings: BaseSettings) -> list[str]:
    """The origins a crawl reaches besides its site's hosts: its local copy's address, the Wayback
    address it was configured with, an operator's extra origins."""
    local = list(settings.getdict("STANCEWORK_LOCAL_ROUTES"))
    wayback = [settings["STANCEWORK_WAYBACK_URL"]] if settings.get("STANCEWORK_WAYBACK_URL") else []
    return [*local, *wayback, *settings.getlist("STANCEWORK_EXTRA_ORIGINS")]


class LocalRoutes:
    """Requests for a local copy's address (``STANCEWORK_LOCAL_ROUTES``: origin → where it listens now)
    go to where it listens, as through an HTTP proxy, under their own URL.

    The saved pages are served on a port derived from their folder, and on another when that one is
    taken. Their URLs keep the derived port whatever the server got: the saved queue and seen-requests
    of a stopped crawl, the HTTP cache and the page store all hold those URLs, so a resume finds its
    state and stores nothing twice. The local server answers a proxy's absolute-URI request line."""

    def __init__(self, routes: dict[str, str]) -> None:
        self.routes = routes

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LocalRoutes:
        routes = crawler.settings.getdict("STANCEWORK_LOCAL_ROUTES")
        if not routes:
            raise NotConfigured("no local copy of saved pages is served")
        return cls({str(k): str(v) for k, v in routes.items()})

    def process_request(self, request: Request, spider: Spider) -> None:
        target = self.routes.get(origin(request.url))
        if target:
            # Set on every attempt: a retried or redirected request carries the meta of its
            # first, which a resumed crawl's saved queue may hold from a server since gone.
            request.meta["proxy"] = target


class SharedPoliteness:
    """One request per site every ``DOWNLOAD_DELAY``, whichever process of a shared crawl sends it.

    Scrapy's delay holds within one process only, and scrapy-redis shares the queue, not the timing.
    So before each request a process takes the site's slot in Redis (SET NX, expiring after the
    delay) and, while another process holds it, waits without blocking the reactor. A shared
    crawl's spider has no delay of its own and a few requests' concurrency (DebateSpider), so a
    request goes out as soon as it has the slot: the spacing at the site is the slot's.
    By hand: no maintained library does cross-process politeness for Scrapy.
    """

    def __init__(self, server: redis.Redis, delay: float) -> None:
        self.server = server
        self.delay_ms = int(delay * 1000)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SharedPoliteness:
        # The site's delay, as its spider's custom_settings or CRAWLER_DOWNLOAD_DELAY_MS set it.
        server = redis.Redis.from_url(crawler.settings["REDIS_URL"])
        middleware = cls(server, crawler.settings.getfloat("DOWNLOAD_DELAY"))
        crawler.signals.connect(middleware.sending, signal=signals.request_reached_downloader)
        return middleware

    def sending(self, request: Request, spider: Spider) -> None:
        """The request leaves now: the site's slot runs from here, not from when it was taken (the
        reactor may have been busy in between, e.g. storing a page)."""
        if self.delay_ms > 0:
            self.server.set(self._key(spider), str(time.time()), px=self.delay_ms)

    @staticmethod
    def _key(spider: Spider) -> str:
        return f"stancework:polite:{spider.name}"

    async def process_request(self, request: Request, spider: Spider) -> None:
        if self.delay_ms <= 0:
            return
        from twisted.internet import reactor  # the one Scrapy installed (imported late on purpose)

        key = self._key(spider)
        while not self.server.set(key, str(time.time()), nx=True, px=self.delay_ms):
            wait = max(int(cast(int, self.server.pttl(key))), 1) / 1000
            await deferLater(cast(IReactorTime, reactor), wait, lambda: None)
