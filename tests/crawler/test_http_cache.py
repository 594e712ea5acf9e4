"""The crawl's HTTP cache survives a crawl killed while it stores a response: the half-written entry
is fetched again, never replayed with its body missing or cut short."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from scrapy import Spider
from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from scrapy.utils.misc import load_object
from scrapy.utils.request import RequestFingerprinter

from crawler.scrapy_settings import HTTPCACHE_STORAGE

BODY = b"<html><body>" + b"a debate " * 2000 + b"</body></html>"


class Killed(BaseException):
    """What SIGKILL does to the writer: it stops, mid-entry, and runs no cleanup."""


def storage_and_spider(cache_dir: Path) -> tuple[object, Spider]:
    spider = Spider("idebate")
    spider.crawler = SimpleNamespace(request_fingerprinter=RequestFingerprinter())  # type: ignore[assignment]
    storage = load_object(HTTPCACHE_STORAGE)(
        Settings({"HTTPCACHE_DIR": str(cache_dir), "HTTPCACHE_EXPIRATION_SECS": 0})
    )
    storage.open_spider(spider)
    return storage, spider


def response(request: Request) -> HtmlResponse:
    return HtmlResponse(url=request.url, body=BODY, headers={"Content-Type": "text/html"}, request=request)


def test_a_whole_entry_is_replayed(tmp_path: Path) -> None:
    storage, spider = storage_and_spider(tmp_path)
    request = Request("http://127.0.0.1/debatabase/theme/a")
    storage.store_response(spider, request, response(request))
    replayed = storage_and_spider(tmp_path)[0].retrieve_response(spider, request)
    assert replayed is not None and replayed.body == BODY


@pytest.mark.parametrize("killed_at", ["response_headers", "response_body", "request_headers"])
def test_an_entry_cut_short_by_a_kill_is_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, killed_at: str
) -> None:
    storage, spider = storage_and_spider(tmp_path)
    request = Request("http://127.0.0.1/debatabase/theme/a")
    real_open = storage._open  # type: ignore[attr-defined]

    def open_until_killed(path: Path | str, mode: str) -> object:
        if Path(path).name == killed_at:
            raise Killed
        return real_open(path, mode)

    monkeypatch.setattr(storage, "_open", open_until_killed)
    with pytest.raises(Killed):
        storage.store_response(spider, request, response(request))
    # The crawl run again: a new process, a new storage over the same folder.
    assert storage_and_spider(tmp_path)[0].retrieve_response(spider, request) is None


def test_an_entry_rewritten_and_killed_is_not_replayed_half_old_half_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage, spider = storage_and_spider(tmp_path)
    request = Request("http://127.0.0.1/debatabase/theme/a")
    storage.store_response(spider, request, response(request))
    real_open = storage._open  # type: ignore[attr-defined]

    def open_until_killed(path: Path | str, mode: str) -> object:
        if Path(path).name == "response_body":
            raise Killed
        return real_open(path, mode)

    monkeypatch.setattr(storage, "_open", open_until_killed)
    with pytest.raises(Killed):
        storage.store_response(spider, request, response(request).replace(headers={"X-New": "1"}))
    assert storage_and_spider(tmp_path)[0].retrieve_response(spider, request) is None
