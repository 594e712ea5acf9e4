"""Scrapy settings for the Stancework spiders; `manage.py crawl` layers Django settings and options on top.

`scrapy.cfg` points here, so `scrapy check` / `scrapy list` work from the repository root.
"""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# The pipelines write through Django's ORM; `scrapy` run on its own must configure Django first.
django.setup()

from django.conf import settings as django_settings  # noqa: E402

BOT_NAME = "stancework"
SPIDER_MODULES = ["crawler.spiders"]
NEWSPIDER_MODULE = "crawler.spiders"

USER_AGENT = django_settings.CRAWLER_USER_AGENT
ROBOTSTXT_OBEY = True
# One request at a time per site, with a delay at least the site's Crawl-delay; AutoThrottle
# stretches it further when the server slows down.
CONCURRENT_REQUESTS = 4
CONCURRENT_REQUESTS_PER_DOMAIN = 1
# The default; each spider sets its site's own delay in custom_settings.
DOWNLOAD_DELAY = 2.0
RANDOMIZE_DOWNLOAD_DELAY = True
AUTOTHROTTLE_ENABLED = django_settings.CRAWLER_AUTOTHROTTLE
AUTOTHROTTLE_START_DELAY = max(DOWNLOAD_DELAY, 1.0)
AUTOTHROTTLE_MAX_DELAY = 60.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0

HTTPCACHE_ENABLED = django_settings.CRAWLER_HTTPCACHE
HTTPCACHE_DIR = str(django_settings.CRAWLER_DIR / "httpcache")
HTTPCACHE_EXPIRATION_SECS = 7 * 24 * 3600
HTTPCACHE_IGNORE_HTTP_CODES = [429, 500, 502, 503, 504]
HTTPCACHE_STORAGE = "crawler.httpcache.CrashSafeCacheStorage"

# Give up on a site that keeps failing rather than hammering it.
CLOSESPIDER_ERRORCOUNT = 50

RETRY_ENABLED = True
RETRY_TIMES = 3
RETRY_HTTP_CODES = [408, 429, 500, 502, 503, 504, 522, 524]
# Generous, for the web archive; once a stop is asked for, requests in flight get far less
# (crawler.stopping).
DOWNLOAD_TIMEOUT = 60
DOWNLOAD_HANDLERS = {
    "http": "crawler.stopping.StoppableDownloads",
    "https": "crawler.stopping.StoppableDownloads",
}
REDIRECT_MAX_TIMES = 5

# Django's ORM is synchronous; the asyncio reactor would run pipelines inside an event loop,
# which Django refuses. The default Twisted reactor keeps them plain synchronous code.
TWISTED_REACTOR = "twisted.internet.epollreactor.EPollReactor"

DOWNLOADER_MIDDLEWARES = {
    # First: no request for an address off the site's hosts goes further (crawler.targets).
    "crawler.middlewares.CrawlTargets": 10,
    "crawler.middlewares.ForbiddenLinksMiddleware": 50,
    # Before Scrapy's HttpProxyMiddleware (750), which reads the route it sets.
    "crawler.middlewares.LocalRoutes": 60,
    # Last: once a stop is asked for, unsent requests go back to the scheduler (crawler.stopping).
    "crawler.stopping.UnsentRequestsBack": 950,
}
ITEM_PIPELINES = {
    "crawler.pipelines.StorePagePipeline": 100,
    "crawler.pipelines.CleanPipeline": 200,
    "crawler.pipelines.ValidatePipeline": 300,
    "crawler.pipelines.DedupePipeline": 400,
    "crawler.pipelines.IngestPipeline": 500,
}
EXTENSIONS = {"crawler.extensions.RunProgress": 500}
SPIDER_CONTRACTS = {"crawler.contracts.FixtureContract": 5}
STANCEWORK_PROGRESS_SECONDS = django_settings.CRAWLER_PROGRESS_SECONDS
STANCEWORK_WAYBACK_URL = django_settings.CRAWLER_WAYBACK_URL
STANCEWORK_EXTRA_ORIGINS = django_settings.CRAWLER_EXTRA_ORIGINS

LOG_LEVEL = "INFO"
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"
