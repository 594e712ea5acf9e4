"""Crawl services: the page store, runs, and starting a crawl process."""

from __future__ import annotations

import os
import sys
import time

import pytest
from django.test import override_settings

from crawler import reporting, services
from crawler.models import CrawlRun, Page, PageVersion, RunStatus

pytestmark = pytest.mark.django_db


def test_a_page_is_stored_once_and_a_changed_page_gets_a_new_version() -> None:
    first = services.store_page(
        None, "idebate", "https://idebate.org/a", b"<html>1</html>", "https://idebate.org/a"
    )
    same = services.store_page(
        None, "idebate", "https://idebate.org/a", b"<html>1</html>", "http://127.0.0.1/a"
    )
    changed = services.store_page(
        None, "idebate", "https://idebate.org/a", b"<html>2</html>", "https://idebate.org/a"
    )
    assert (first.created, same.created, changed.created) == (True, False, True)
    assert first.version_id == same.version_id
    assert Page.objects.count() == 1
    assert PageVersion.objects.count() == 2


def test_a_run_checks_its_arguments() -> None:
    with pytest.raises(services.CrawlRequestError):
        services.create_run("wikipedia")
    with pytest.raises(services.CrawlRequestError):
        services.create_run("idebate", archive="2019")
    with pytest.raises(services.CrawlRequestError):
        services.create_run("idebate", archive="2019:2012")
    with pytest.raises(services.CrawlRequestError):
        services.create_run("idebate", limit=0)
    run = services.create_run("procon", archive="2015:2019", limit=5)
    assert (run.mode, run.archive_from, run.archive_to, run.status) == ("archive", "2015", "2019", "queued")


def test_progress_counts_pages_items_drops_and_errors() -> None:
    run = services.create_run("idebate")
    reporting.start_run(run.pk, pid=os.getpid())  # as its crawl does on opening
    stats = {
        "response_received_count": 12,
        "stancework/ingested": 7,
        "stancework/drop/no_points": 2,
        "stancework/unchanged": 1,  # read again, found as it was: not a drop
        "log_count/ERROR": 1,
        "spider_exceptions/ValueError": 1,
    }
    reporting.save_progress(run.pk, stats)
    run.refresh_from_db()
    assert (run.pages, run.items, run.drops, run.errors) == (12, 7, 2, 2)
    assert run.stats["stancework/drop/no_points"] == 2


def test_requesting_a_crawl_starts_a_separate_process_through_celery(
    monkeypatch: pytest.MonkeyPatch, tmp_path, django_capture_on_commit_callbacks
) -> None:
    marker = tmp_path / "started"
    # Stand in for `manage.py crawl`: the point is that a child process starts, not what it crawls.
    monkeypatch.setattr(
        services,
        "crawl_command",
        lambda run: [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('{run.pk}')"],
    )
    with override_settings(CRAWLER_DIR=tmp_path), django_capture_on_commit_callbacks(execute=True):
        run = services.request_crawl("idebate", limit=3)
    run.refresh_from_db()
    assert run.pid and run.pid != __import__("os").getpid()
    for _ in range(100):
        if marker.exists() and marker.read_text():
            break
        time.sleep(0.05)
    assert marker.read_text() == str(run.pk)


def test_a_run_that_is_not_queued_is_not_launched() -> None:
    run = services.create_run("idebate")
    CrawlRun.objects.filter(pk=run.pk).update(status=RunStatus.FINISHED)
    with pytest.raises(services.CrawlRequestError):
        services.launch_crawl(run.pk)
