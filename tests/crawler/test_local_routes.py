"""Requests for a local copy's address go to wherever it listens now, under their own URL
(crawler.middlewares.LocalRoutes and the local site's answer to a proxy's request line)."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings

from crawler.local_site import LocalSite
from crawler.middlewares import LocalRoutes

ADDRESS = "http://127.0.0.1:20001"
NOW = "http://127.0.0.1:45678"


def routed(url: str, **meta: str) -> str | None:
    request = Request(url, meta=meta)
    LocalRoutes({ADDRESS: NOW}).process_request(request, Spider("idebate"))
    return request.meta.get("proxy")


def test_a_request_for_the_local_address_goes_where_it_listens_now_under_its_own_url() -> None:
    request = Request(f"{ADDRESS}/debatabase/all?page=1")
    LocalRoutes({ADDRESS: NOW}).process_request(request, Spider("idebate"))
    # The URL (what the saved queue, the cache and the page store hold) is untouched.
    assert (request.url, request.meta["proxy"]) == (f"{ADDRESS}/debatabase/all?page=1", NOW)


def test_a_request_elsewhere_is_left_alone() -> None:
    assert routed("http://127.0.0.1:20002/debatabase/all") is None
    assert routed("https://idebate.net/debatabase/") is None


def test_a_route_saved_with_a_request_from_a_server_since_gone_is_replaced() -> None:
    assert routed(f"{ADDRESS}/robots.txt", proxy="http://127.0.0.1:40404") == NOW


def crawler_with(values: dict[str, object]) -> Crawler:
    # Only its settings are read: a real Crawler wants a reactor installed in this process.
    return cast(Crawler, SimpleNamespace(settings=Settings(values)))


def test_without_routes_the_middleware_is_off() -> None:
    with pytest.raises(NotConfigured):
        LocalRoutes.from_crawler(crawler_with({}))
    crawler = crawler_with({"STANCEWORK_LOCAL_ROUTES": {ADDRESS: NOW}})
    assert LocalRoutes.from_crawler(crawler).routes == {ADDRESS: NOW}


def test_the_local_site_answers_a_request_sent_as_to_a_proxy(tmp_path: Path) -> None:
    (tmp_path / "a-debate.html").write_bytes(b"<html>a debate</html>")
    with LocalSite.idebate(tmp_path).serve() as site:
        # The request line names another address; the server answers its path.
        proxy = urllib.request.ProxyHandler({"http": site.url})
        with urllib.request.build_opener(proxy).open(f"{ADDRESS}/debatabase/theme/a-debate") as answer:
            assert answer.read() == b"<html>a debate</html>"
    assert site.requested == ["/debatabase/theme/a-debate"]
