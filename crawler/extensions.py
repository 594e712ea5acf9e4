"""Scrapy extension: keep the CrawlRun row up to date (status, pid, stats) while the crawl runs."""

from __future__ import annotations

import os

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from twisted.internet import task

from crawler import services
from crawler.models import RunStatus


class RunProgress:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.loop: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RunProgress:
        extension = cls(crawler, crawler.settings.getfloat("STANCEWORK_PROGRESS_SECONDS", 5.0))
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def _stats(self) -> dict:
        assert self.crawler.stats is not None
        return dict(self.crawler.stats.get_stats())

    def spider_opened(self, spider: Spider) -> None:
        run_id = getattr(spider, "run_id", None)
        if run_id is None:
            return
        services.start_run(run_id, os.getpid(), resumed_from=getattr(spider, "resumed_from", None))
        self.loop = task.LoopingCall(lambda: services.save_progress(run_id, self._stats()))
        self.loop.start(self.interval, now=False)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        run_id = getattr(spider, "run_id", None)
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        if run_id is None:
            return
        # "finished" and the CLOSESPIDER_* reasons are normal ends; "shutdown" is a stop request.
        status = RunStatus.STOPPED if reason == "shutdown" else RunStatus.FINISHED
        services.finish_run(run_id, status, self._stats(), message=f"closed: {reason}")
