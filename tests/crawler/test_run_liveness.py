"""Runs and their crawls, judged by the run's row (crawls run in other containers, whose pids mean
nothing here): one active run per site and mode, a heartbeat that keeps a run alive, a stop request the
crawl reads, and beat's sweep failing the silent ones with the reason. Only in the crawl's own pid
namespace is its pid looked at, to fail a gone crawl without waiting."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psutil
import pytest
from django.db import connection
from django.utils import timezone

from crawler import processes, reporting, services
from crawler.models import CrawlRun, RunStatus
from crawler.tasks import fail_silent_runs

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


def running(run: CrawlRun, silent_for: timedelta = timedelta(0)) -> CrawlRun:
    """The run as a crawl process leaves it on opening (this process stands in for it: alive, so
    only the heartbeat decides), its last heartbeat `silent_for` ago."""
    assert reporting.start_run(run.pk, pid=1)
    CrawlRun.objects.filter(pk=run.pk).update(pid_namespace="", pid=None)
    CrawlRun.objects.filter(pk=run.pk).update(heartbeat=timezone.now() - silent_for)
    run.refresh_from_db()
    return run


def test_a_second_active_run_of_a_site_and_mode_is_refused_with_a_clear_error() -> None:
    first = running(services.create_run("idebate"))
    with pytest.raises(services.CrawlRequestError, match=f"already active \\(run {first.pk}\\)"):
        services.create_run("idebate")
    # Another mode of the same site, or another site, may run beside it.
    services.create_run("idebate", archive="2012:2019")
    services.create_run("procon")


def test_beat_fails_a_run_whose_heartbeat_is_older_than_the_limit_and_says_why(settings: Any) -> None:
    settings.CRAWLER_HEARTBEAT_LIMIT_SECONDS = 60
    silent = running(services.create_run("idebate"), silent_for=timedelta(seconds=300))
    alive = running(services.create_run("procon"), silent_for=timedelta(seconds=30))

    assert fail_silent_runs.delay().get() == [silent.pk]

    silent.refresh_from_db()
    assert silent.status == RunStatus.FAILED and silent.finished is not None
    assert silent.message.startswith("no heartbeat for 300 s (the limit is 60 s): its crawl process is gone")
    assert CrawlRun.objects.get(pk=alive.pk).status == RunStatus.RUNNING
    # The site is free again.
    assert services.create_run("idebate").status == RunStatus.QUEUED


def test_a_queued_run_no_process_took_up_is_failed_after_the_queued_timeout() -> None:
    lost = services.create_run("idebate")
    fresh = services.create_run("procon")
    CrawlRun.objects.filter(pk=lost.pk).update(created=timezone.now() - services.QUEUED_TIMEOUT * 2)

    assert services.fail_dead_runs() == [lost.pk]
    assert "no crawl process took it up" in CrawlRun.objects.get(pk=lost.pk).message
    assert CrawlRun.objects.get(pk=fresh.pk).status == RunStatus.QUEUED


def test_a_crawl_that_reports_stays_alive_and_learns_of_a_stop_request_at_its_next_report(
    settings: Any,
) -> None:
    settings.CRAWLER_HEARTBEAT_LIMIT_SECONDS = 60
    run = running(services.create_run("idebate"), silent_for=timedelta(seconds=50))

    assert reporting.save_progress(run.pk, {"response_received_count": 3}) is True
    assert services.fail_dead_runs() == []  # the report was its heartbeat
    assert services.stop_crawl(run.pk) is True
    assert reporting.save_progress(run.pk, {"response_received_count": 4}) is False
    run.refresh_from_db()
    assert run.pages == 4 and run.stop_requested is not None and run.status == RunStatus.RUNNING
    status, message = reporting.ending_of("shutdown", {})
    reporting.finish_run(run.pk, status, message=message)
    assert CrawlRun.objects.get(pk=run.pk).status == RunStatus.STOPPED


def test_a_run_stopped_before_a_process_took_it_up_stops_at_once_and_its_crawl_does_not_start() -> None:
    run = services.create_run("idebate")

    assert services.stop_crawl(run.pk) is True
    run.refresh_from_db()
    assert run.status == RunStatus.STOPPED and "before a crawl process took it up" in run.message
    assert reporting.start_run(run.pk, pid=1) is False


def test_a_run_failed_for_silence_keeps_its_ending_when_its_stalled_process_reports_again(
    settings: Any,
) -> None:
    settings.CRAWLER_HEARTBEAT_LIMIT_SECONDS = 60
    run = running(services.create_run("idebate"), silent_for=timedelta(seconds=120))
    services.fail_dead_runs()

    assert reporting.save_progress(run.pk, {"response_received_count": 9}) is False  # it stops itself
    reporting.finish_run(run.pk, RunStatus.FINISHED, {})
    assert CrawlRun.objects.get(pk=run.pk).status == RunStatus.FAILED


def test_in_the_crawls_own_pid_namespace_a_gone_process_is_failed_without_waiting() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    run = running(services.create_run("idebate"))
    CrawlRun.objects.filter(pk=run.pk).update(
        pid=gone.pid, pid_started=time.time() - 5, pid_namespace=processes.pid_namespace()
    )

    assert services.fail_dead_runs() == [run.pk]
    assert CrawlRun.objects.get(pk=run.pk).message == services.PROCESS_GONE


def test_a_pid_from_another_pid_namespace_is_never_looked_at(sleeper: subprocess.Popen[bytes]) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    run = running(services.create_run("idebate"))
    # Another container's crawl: its pid names nothing here (here it is a dead one, or any other).
    CrawlRun.objects.filter(pk=run.pk).update(pid=gone.pid, pid_namespace="another-boot:4026531836")

    assert services.fail_dead_runs() == []
    assert services.stop_crawl(run.pk) is True
    assert sleeper.poll() is None and CrawlRun.objects.get(pk=run.pk).status == RunStatus.RUNNING


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


def test_a_crawl_with_requests_given_up_on_ends_finished_with_errors_and_counts_them() -> None:
    stats = {
        "stancework/failed_request/ConnectionRefusedError": 204,
        "stancework/failed_request/TimeoutError": 2,
    }

    status, message = reporting.ending_of("finished", stats)

    assert status == RunStatus.FINISHED_WITH_ERRORS
    assert (
        message
        == "closed: finished; 206 requests failed for good (204 ConnectionRefusedError, 2 TimeoutError)"
    )
    assert reporting.ending_of("finished", {"downloader/response_count": 5}) == (
        RunStatus.FINISHED,
        "closed: finished",
    )


def test_the_debates_of_every_resumed_run_count_toward_the_limit() -> None:
    first = services.create_run("idebate")
    CrawlRun.objects.filter(pk=first.pk).update(status=RunStatus.STOPPED, items=4)
    second = services.create_run("idebate")
    CrawlRun.objects.filter(pk=second.pk).update(status=RunStatus.STOPPED, items=3, resumed_from=first)

    assert reporting.ingested_before(second.pk) == 7
    assert reporting.ingested_before(None) == 0


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


def test_a_shared_run_waits_for_helpers_that_still_report_on_any_machine() -> None:
    from crawler.models import CrawlHelper

    run = running(services.create_run("idebate", shared=True))
    assert not reporting.helpers_at_work(run.pk)
    helper = CrawlHelper.objects.create(run=run, pid=999_999)  # a pid of another machine: never checked
    assert reporting.helpers_at_work(run.pk)
    CrawlHelper.objects.filter(pk=helper.pk).update(reported=timezone.now() - timedelta(minutes=5))
    assert not reporting.helpers_at_work(run.pk)  # silent: gone
    reporting.save_helper_progress(helper.pk, {"response_received_count": 7})
    assert reporting.helpers_at_work(run.pk) and CrawlHelper.objects.get().pages == 7
    reporting.save_helper_progress(helper.pk, {"response_received_count": 9}, finished=True)
    assert not reporting.helpers_at_work(run.pk)
    reporting.save_progress(run.pk, {"response_received_count": 4})
    assert CrawlRun.objects.get(pk=run.pk).pages == 4 + 9  # the run counts its helper's pages
