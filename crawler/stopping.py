"""Stopping a crawl promptly, at any politeness, without losing or refetching a page.

Scrapy's own graceful stop (what SIGTERM does) finishes every request its downloader holds. With one
request at a time per site, the requests queued for the site go out one delay apart after the stop,
a delay AutoThrottle stretches up to a minute, and a request in flight may take DOWNLOAD_TIMEOUT.
So once Stop is asked for (`stop_promptly`):

- the requests queued for a site and not yet sent, and any that reach the downloader later, go back
  to the scheduler, which saves them with the crawl's state, so the resume fetches them;
- the requests in flight get `IN_FLIGHT_SECONDS` to finish, then are cancelled and go back likewise.

The short limit applies only once a stop was asked for: a crawl of the web archive, slow to answer,
keeps the generous DOWNLOAD_TIMEOUT, and a request a stop did not interrupt is never cut short.
"""

from __future__ import annotations

import logging
from typing import Any, Self

from scrapy import Request, Spider
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.http.request import NO_CALLBACK
from twisted.internet.defer import Deferred

from crawler.services import STOP_SECONDS

log = logging.getLogger(__name__)

# How often a crawl reads whether it was asked to stop.
STOP_POLL_SECONDS = 1.0
# What ending takes after the last request: storing the pages in hand, saving the queue, the run's row.
CLOSING_SECONDS = 4.0
# How long a request in flight when the stop comes may still take; then it is cancelled.
IN_FLIGHT_SECONDS = STOP_SECONDS - STOP_POLL_SECONDS - CLOSING_SECONDS

# The signal `stop_promptly` sends before Scrapy's stop.
stop_asked = object()
# On a request in flight that the stop cancelled.
CANCELLED = "stancework_cancelled_by_stop"


def stop_promptly(crawler: Crawler) -> None:
    """Stop the crawl gracefully (it closes "shutdown", its state saved), within `STOP_SECONDS`."""
    crawler.signals.send_catch_log(signal=stop_asked)
    crawler.stop()


def kept_for_resume(request: Request) -> Request:
    """The request again, for the scheduler: it was seen already, so the dupefilter must let it by."""
    meta = {key: value for key, value in request.meta.items() if key != CANCELLED}
    return request.replace(dont_filter=True, meta=meta)


class UnsentRequestsBack:
    """Downloader middleware, last in line: once a stop was asked for, the requests waiting for their
    site's delay, and any that come after, go back to the scheduler unsent; so does a request in
    flight the stop cancelled (before RetryMiddleware counts it a failure)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stopping = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        middleware = cls(crawler)
        crawler.signals.connect(middleware.stop_asked, signal=stop_asked)
        return middleware

    def stop_asked(self) -> None:
        self.stopping = True
        assert self.crawler.engine is not None
        for slot in self.crawler.engine.downloader.slots.values():
            while slot.queue:
                request, deferred = slot.queue.popleft()
                try:
                    # The downloader's own deferred, typed for a response; Scrapy's middleware
                    # manager and engine take a request from it as a request to schedule.
                    deferred.callback(self.turned_back(request))  # type: ignore[arg-type]
                except IgnoreRequest as error:
                    deferred.errback(error)

    def process_request(self, request: Request, spider: Spider) -> Request | None:
        return self.turned_back(request) if self.stopping else None

    @staticmethod
    def turned_back(request: Request) -> Request:
        """A crawl's request goes back to the scheduler. One the engine downloads for a component
        (robots.txt) has no scheduler to go back to: it is ignored, and the component does without."""
        if request.callback is NO_CALLBACK:
            raise IgnoreRequest("the crawl is stopping")
        return kept_for_resume(request)

    def process_exception(self, request: Request, exception: Exception, spider: Spider) -> Request | None:
        return kept_for_resume(request) if request.meta.get(CANCELLED) else None


class StoppableDownloads(HTTP11DownloadHandler):
    """Scrapy's HTTP download handler, which cancels its requests still in flight `IN_FLIGHT_SECONDS`
    after a stop was asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight: dict[Request, Deferred[Response]] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        handler = super().from_crawler(crawler)
        crawler.signals.connect(handler.stop_asked, signal=stop_asked)
        return handler

    def download_request(self, request: Request, spider: Spider) -> Deferred[Response]:
        download = super().download_request(request, spider)
        self.in_flight[request] = download

        def landed(result: Any) -> Any:
            self.in_flight.pop(request, None)
            return result

        return download.addBoth(landed)

    def stop_asked(self) -> None:
        from twisted.internet import reactor  # the one Scrapy installed (imported late on purpose)

        reactor.callLater(IN_FLIGHT_SECONDS, self.cancel_in_flight)  # type: ignore[attr-defined]

    def cancel_in_flight(self) -> None:
        for request, download in list(self.in_flight.items()):
            log.info("stopping: %s still in flight, cancelled and kept for the resume", request.url)
            request.meta[CANCELLED] = True
            download.cancel()
