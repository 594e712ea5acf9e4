"""`--limit` counts the whole crawl, exactly, across any number of stops and resumes: a run that
reaches its limit while stopping has ended (nothing is left to resume), and a resume whose earlier
runs already reached the limit crawls nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawler import crawling, reporting, services
from crawler.crawling import CLEAN_STOP, job_dir, run_spider
from crawler.models import CrawlRun, RunStatus

pytestmark = pytest.mark.django_db

START = ["http://127.0.0.1:20999/debatabase/all"]


def test_a_stop_that_comes_as_the_limit_is_reached_ends_the_run_rather_than_stopping_it() -> None:
    stats = {"stancework/ingested": 20}

    assert reporting.ending_of("shutdown", stats, limit=20) == (RunStatus.FINISHED, reporting.LIMIT_REACHED)
    assert reporting.ending_of("shutdown", {"stancework/ingested": 19}, limit=20)[0] == RunStatus.STOPPED
    assert reporting.ending_of("shutdown", stats, limit=None)[0] == RunStatus.STOPPED
    assert not reporting.stopped_short("shutdown", stats, limit=20)
    assert reporting.stopped_short("shutdown", stats, limit=21)


@pytest.mark.parametrize("chain", [[20], [7, 13], [5, 5, 5, 5], [3, 17, 0]])
def test_a_resume_after_runs_that_reached_the_limit_crawls_nothing_and_ends(
    chain: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    crawled: list[int | None] = []
    monkeypatch.setattr(crawling, "_crawl_to_the_end", lambda _p, _c, _r, limit, _g: crawled.append(limit))
    previous = None
    for items in chain:  # a chain of stopped runs, each resuming the one before
        run = services.create_run("idebate", limit=20, start_urls=START)
        CrawlRun.objects.filter(pk=run.pk).update(
            status=RunStatus.STOPPED, items=items, resumed_from=previous
        )
        previous = run
    assert previous is not None and reporting.ingested_before(previous.pk) == 20
    resumed = services.create_run("idebate", limit=20, start_urls=START)
    folder = job_dir(resumed)
    folder.mkdir(parents=True)
    (folder / CLEAN_STOP).write_text(json.dumps({"run": previous.pk}))

    run_spider(resumed)

    resumed.refresh_from_db()
    assert crawled == []
    assert (resumed.status, resumed.items) == (RunStatus.FINISHED, 0)
    assert resumed.message == reporting.LIMIT_REACHED
    assert not Path(folder).exists()


def test_a_resume_crawls_exactly_what_is_left_of_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    crawled: list[int | None] = []
    monkeypatch.setattr(crawling, "_crawl_to_the_end", lambda _p, _c, _r, limit, _g: crawled.append(limit))
    first = services.create_run("idebate", limit=20, start_urls=START)
    CrawlRun.objects.filter(pk=first.pk).update(status=RunStatus.STOPPED, items=19)
    resumed = services.create_run("idebate", limit=20, start_urls=START)
    folder = job_dir(resumed)
    folder.mkdir(parents=True)
    (folder / CLEAN_STOP).write_text(json.dumps({"run": first.pk}))

    run_spider(resumed)

    assert crawled == [1]
