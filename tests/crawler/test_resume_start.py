"""A resumed crawl does not fetch its start URLs again: they went through the dupefilter its stopped
run saved in the JOBDIR (Scrapy's own default sends start URLs past it, so each resume refetched the
start listing)."""

from __future__ import annotations

from pathlib import Path

from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.request import RequestFingerprinter

from crawler.spiders.idebate import IdebateSpider

START = "http://127.0.0.1:8765/debatabase/all"


def scheduled(spider: IdebateSpider, jobdir: Path) -> list[str]:
    """What a scheduler keeping its dupefilter in `jobdir` lets through of the spider's start."""
    jobdir.mkdir(exist_ok=True)
    seen = RFPDupeFilter(str(jobdir), fingerprinter=RequestFingerprinter())
    try:
        return [r.url for r in spider.start_requests() if r.dont_filter or not seen.request_seen(r)]
    finally:
        seen.close("shutdown")


def test_a_resumed_crawl_does_not_fetch_its_start_urls_again(tmp_path: Path) -> None:
    first = IdebateSpider(start_urls=START, run_id="1")
    assert scheduled(first, tmp_path) == [START]

    resumed = IdebateSpider(start_urls=START, run_id="2", resumed_from=1)
    assert scheduled(resumed, tmp_path) == []


def test_a_fresh_crawl_with_an_empty_job_dir_fetches_its_start_urls(tmp_path: Path) -> None:
    assert scheduled(IdebateSpider(start_urls=START, run_id="1"), tmp_path / "a") == [START]
    assert scheduled(IdebateSpider(start_urls=START, run_id="2"), tmp_path / "b") == [START]
