"""Scrapy extension: keep the CrawlRun row up to date (status, stats, heartbeat) while the crawl runs,
and stop the crawl gracefully when a stop was asked for on the row (from any container or machine).

In a shared crawl, a helper process (`crawl SITE --join`) keeps its own CrawlHelper row instead, and
the run's own process stays open while a helper still works: a helper's responses can still add
requests to the shared queue, and the run is finished only when the last process is done.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from twisted.internet import task

from crawler import reporting
from crawler.stopping import STOP_POLL_SECONDS, stop_promptly


class RunProgress:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.loops: list[task.LoopingCall] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RunProgress:
        extension = cls(crawler, crawler.settings.getfloat("STANCEWORK_PROGRESS_SECONDS", 5.0))
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def _stats(self) -> dict:
        assert self.crawler.stats is not None
        return dict(self.crawler.stats.get_stats())

    def spider_opened(self, spider: Spider) -> None:
        run_id, helper_id = getattr(spider, "run_id", None), getattr(spider, "helper_id", None)
        if helper_id is not None:
            self._every(self.interval, lambda: reporting.save_helper_progress(helper_id, self._stats()))
            self._every(STOP_POLL_SECONDS, lambda: reporting.helper_may_go_on(helper_id))
        elif run_id is not None:
            resumed_from = getattr(spider, "resumed_from", None)
            if not reporting.start_run(run_id, os.getpid(), resumed_from=resumed_from):
                # Stopped before it started: close at the first beat (the engine is not running yet).
                self._every(self.interval, lambda: False)
                return
            self._every(self.interval, lambda: reporting.save_progress(run_id, self._stats()))
            # Read far more often than the heartbeat is written: Stop promises STOP_SECONDS.
            self._every(STOP_POLL_SECONDS, lambda: reporting.run_may_go_on(run_id))

    def _every(self, interval: float, report: Callable[[], bool]) -> None:
        """Call `report` every interval (the heartbeat, the stop request's poll); one that says not
        to go on stops the crawl."""

        def beat() -> None:
            if not report():
                self._stop()

        loop = task.LoopingCall(beat)
        self.loops.append(loop)
        loop.start(interval, now=False)

    def _stop(self) -> None:
        """What SIGTERM does (the crawl closes "shutdown", its queue saved), within STOP_SECONDS."""
        self._stop_loops()
        if self.crawler.crawling:
            stop_promptly(self.crawler)

    def _stop_loops(self) -> None:
        for loop in self.loops:
            if loop.running:
                loop.stop()

    def spider_idle(self, spider: Spider) -> None:
        """The run's own process waits for its helpers, polling the shared queue meanwhile."""
        run_id = getattr(spider, "run_id", None)
        shared = getattr(spider, "shared", False) and getattr(spider, "helper_id", None) is None
        if run_id is not None and shared and reporting.helpers_at_work(run_id):
            raise DontCloseSpider

    def spider_closed(self, spider: Spider, reason: str) -> None:
        run_id, helper_id = getattr(spider, "run_id", None), getattr(spider, "helper_id", None)
        self._stop_loops()
        if helper_id is not None:
            reporting.save_helper_progress(helper_id, self._stats(), finished=True)
        elif run_id is not None:
            # "finished" and the CLOSESPIDER_* reasons are ends; "shutdown" is a stop request.
            stats = self._stats()
            status, message = reporting.ending_of(reason, stats, getattr(spider, "limit", None))
            reporting.finish_run(run_id, status, stats, message=message)
