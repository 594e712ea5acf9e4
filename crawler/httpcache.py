"""The crawl's HTTP cache, safe against a crawl killed while it writes an entry.

Scrapy's filesystem cache writes an entry as six files and counts it as cached from the second
(`pickled_meta`) on. A crawl killed after that file and before the body (SIGKILL, a container or
machine that dies mid-crawl) leaves an entry that the crawl run again reads as cached: with no body
the request fails and its page is never stored; with a body cut short the page is stored truncated,
and either way for the cache's whole lifetime. Scrapy has no crash-safe storage, so this one marks an
entry whole only after its last file is written, and reads only whole entries.
"""

from __future__ import annotations

from pathlib import Path

from scrapy import Spider
from scrapy.extensions.httpcache import FilesystemCacheStorage
from scrapy.http import Request, Response

# Written after an entry's last file, removed before it is rewritten.
WHOLE = "whole"


class CrashSafeCacheStorage(FilesystemCacheStorage):
    def _marker(self, spider: Spider, request: Request) -> Path:
        return Path(self._get_request_path(spider, request), WHOLE)

    def store_response(self, spider: Spider, request: Request, response: Response) -> None:
        marker = self._marker(spider, request)
        marker.unlink(missing_ok=True)
        super().store_response(spider, request, response)
        marker.touch()

    def retrieve_response(self, spider: Spider, request: Request) -> Response | None:
        if not self._marker(spider, request).exists():
            return None
        return super().retrieve_response(spider, request)
