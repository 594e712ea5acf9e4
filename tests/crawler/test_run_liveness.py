"""Runs and their processes: one active run per site and mode, dead runs settled, and no signal to a
process that merely inherited a dead crawl's pid."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import psutil
import pytest
from django.db import connection

from crawler import processes, services
from crawler.models import CrawlRun, RunStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that is not a crawl."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait()


def fake_crawl(run_id: int) -> subprocess.Popen[bytes]:
    """A live process whose command line reads as run `run_id`'s crawl, returned once it has exec'd:
    until then its command line is still the test's own (the race a loaded machine widens)."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "crawl", "--run", str(run_id)]
    )
    deadline = time.monotonic() + 30
    while "crawl" not in psutil.Process(process.pid).cmdline():
        assert time.monotonic() < deadline, "the fake crawl never started"
        time.sleep(0.01)
    return process


def running(run: CrawlRun, pid: int, started: float | None) -> CrawlRun:
    CrawlRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, pid=pid, pid_started=started)
    run.refresh_from_db()
    return run


def test_a_second_active_run_of_a_site_and_mode_is_refused_with_a_clear_error(
    sleeper: subprocess.Popen[bytes],
) -> None:
    first = services.create_run("idebate")
    crawl = fake_crawl(first.pk)
    try:
        running(first, crawl.pid, processes.describe(crawl.pid).started)  # type: ignore[union-attr]
        with pytest.raises(services.CrawlRequestError, match=f"already active \\(run {first.pk}\\)"):
            services.create_run("idebate")
        # Another mode of the same site, or another site, may run beside it.
        services.create_run("idebate", archive="2012:2019")
        services.create_run("procon")
    finally:
        crawl.kill()
        crawl.wait()


def test_a_run_whose_process_is_gone_is_failed_and_no_longer_blocks_the_site() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    run = running(services.create_run("idebate"), gone.pid, time.time() - 5)
    assert services.fail_dead_runs() == [run.pk]
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "process is gone" in run.message
    assert services.create_run("idebate").status == RunStatus.QUEUED


def test_stop_never_signals_a_process_that_reused_a_dead_crawls_pid(
    sleeper: subprocess.Popen[bytes],
) -> None:
    # The pid now belongs to a process that started later and is no crawl.
    run = running(services.create_run("idebate"), sleeper.pid, time.time() - 3600)
    assert services.stop_crawl(run.pk) is False
    assert sleeper.poll() is None  # still alive: nothing was sent to it
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED


def test_a_live_crawl_process_is_recognised_by_pid_start_time_and_command_line() -> None:
    crawl = fake_crawl(41)
    try:
        started = processes.describe(crawl.pid)
        assert started is not None
        seen = psutil.Process(crawl.pid)
        why = f"recorded start {started.started}, now {seen.create_time()}, command {seen.cmdline()}"
        assert processes.is_crawl_of(crawl.pid, started.started, 41), why
        assert not processes.is_crawl_of(crawl.pid, started.started, 42)
        assert not processes.is_crawl_of(crawl.pid, started.started - 10, 41)
    finally:
        crawl.kill()
        crawl.wait()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_requests_create_one_active_run_on_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the race is about PostgreSQL's unique index")
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def request() -> None:
        barrier.wait()
        try:
            services.create_run("debatewise")
            outcomes.append("created")
        except services.CrawlRequestError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=request) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created"] + ["refused"] * 5
    assert CrawlRun.objects.filter(site="debatewise", status__in=RunStatus.active()).count() == 1


@pytest.mark.django_db
def test_a_shared_run_waits_for_helpers_that_still_report_on_any_machine() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from crawler.models import CrawlHelper

    run = services.create_run("idebate", shared=True)
    assert not services.helpers_at_work(run.pk)
    helper = CrawlHelper.objects.create(run=run, pid=999_999)  # a pid of another machine: never checked
    assert services.helpers_at_work(run.pk)
    CrawlHelper.objects.filter(pk=helper.pk).update(reported=timezone.now() - timedelta(minutes=5))
    assert not services.helpers_at_work(run.pk)  # silent: gone
    services.save_helper_progress(helper.pk, {"response_received_count": 7})
    assert services.helpers_at_work(run.pk) and CrawlHelper.objects.get().pages == 7
    services.save_helper_progress(helper.pk, {"response_received_count": 9}, finished=True)
    assert not services.helpers_at_work(run.pk)
    services.save_progress(run.pk, {"response_received_count": 4})
    assert CrawlRun.objects.get(pk=run.pk).pages == 4 + 9  # the run counts its helper's pages
