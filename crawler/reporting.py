"""What a crawl process writes on its run while it crawls: that it started, its heartbeat with its
stats (which also tells it whether to go on), and its ending; in a shared crawl, its helpers' own.

The other side, crawls started, stopped and failed from outside (the admin, the API, the pipeline,
beat), is crawler.services.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from crawler import processes
from crawler.models import CrawlHelper, CrawlRun, RunStatus
from crawler.services import CrawlRequestError


def start_run(run_id: int, pid: int, resumed_from: int | None = None) -> bool:
    """The crawl process of a run has opened its spider: record who it is. False when the run is no
    longer queued (stopped before it started): then the crawl must not go on."""
    now = timezone.now()
    return bool(
        CrawlRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
            status=RunStatus.RUNNING,
            **processes.run_identity(pid),
            started=now,
            heartbeat=now,
            resumed_from_id=resumed_from,
        )
    )


def save_progress(run_id: int, stats: dict[str, Any]) -> bool:
    """The crawl's heartbeat: store its stats (a shared run's counts include its helpers') so the
    admin shows progress. Whether it should go on: False once a stop was asked for, or once the run
    is no longer running (failed for silence while the process was stalled)."""
    running = CrawlRun.objects.filter(pk=run_id, status=RunStatus.RUNNING)
    fields = {"stats": _jsonable(stats), "heartbeat": timezone.now(), **_with_helpers(run_id, stats)}
    if running.filter(stop_requested__isnull=True).update(**fields):
        return True
    running.update(**fields)
    return False


def run_may_go_on(run_id: int) -> bool:
    """Whether the crawl of a run goes on: not once a stop was asked for or the run ended."""
    return CrawlRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, stop_requested__isnull=True).exists()


def finish_run(run_id: int, status: str, stats: dict[str, Any] | None = None, message: str = "") -> None:
    """End an active run; one already ended (failed for silence, stopped before it started) keeps
    its ending and its reason."""
    fields: dict[str, Any] = {"status": status, "finished": timezone.now(), "message": message}
    if stats is not None:
        fields.update(stats=_jsonable(stats), **_with_helpers(run_id, stats))
    CrawlRun.objects.filter(pk=run_id, status__in=RunStatus.active()).update(**fields)


LIMIT_REACHED = "closed: --limit reached (it counts the runs this one resumes)"


def stopped_short(reason: str, stats: dict[str, Any], limit: int | None) -> bool:
    """Whether a closed crawl stopped (SIGTERM, the admin's Stop) before its end: only then is its
    state worth resuming. A stop that comes as the crawl reaches its `--limit` is an end."""
    reached = bool(limit) and int(stats.get("stancework/ingested", 0)) >= (limit or 0)
    return reason == "shutdown" and not reached


def ending_of(reason: str, stats: dict[str, Any], limit: int | None = None) -> tuple[str, str]:
    """A closed crawl's status and message, from Scrapy's close reason, the crawl's stats and the
    debates it was to ingest (`limit`: what was left of `--limit` when it started)."""
    if stopped_short(reason, stats, limit):
        return RunStatus.STOPPED, "stopped on request; a later crawl of the site resumes it"
    if reason in ("shutdown", "closespider_limit"):
        return RunStatus.FINISHED, LIMIT_REACHED
    failed = failed_requests(stats)
    if failed:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(failed.items()))
        total = sum(failed.values())
        return RunStatus.FINISHED_WITH_ERRORS, f"closed: {reason}; {total} requests failed for good ({kinds})"
    return RunStatus.FINISHED, f"closed: {reason}"


FAILED_PREFIX = "stancework/failed_request/"
# The stat an item pipeline counts a debate under when its page did not change since the last crawl.
UNCHANGED = "stancework/unchanged"


def failed_requests(stats: dict[str, Any]) -> dict[str, int]:
    """Requests given up on after their retries, by error (ConnectionRefusedError, TimeoutError, ...)."""
    return {k.removeprefix(FAILED_PREFIX): int(v) for k, v in stats.items() if k.startswith(FAILED_PREFIX)}


COUNTS = ("pages", "items", "drops", "errors")
# How far back a chain of resumed runs is followed (each resume of a stopped crawl adds one).
RESUME_CHAIN_LIMIT = 1000


def ingested_before(run_id: int | None) -> int:
    """The debates ingested by run `run_id` and the runs it resumed, back to the crawl's first."""
    total, seen = 0, set[int]()
    while run_id is not None and run_id not in seen and len(seen) < RESUME_CHAIN_LIMIT:
        seen.add(run_id)
        row = CrawlRun.objects.filter(pk=run_id).values_list("items", "resumed_from_id").first()
        if row is None:
            break
        total, run_id = total + row[0], row[1]
    return total


def limit_left(limit: int | None, resumed_from: int | None) -> int | None:
    """What `--limit` leaves a run: it counts the whole crawl, so the debates the runs it resumes
    ingested count too. None: no limit."""
    return limit and max(limit - ingested_before(resumed_from), 0)


def _with_helpers(run_id: int, stats: dict[str, Any]) -> dict[str, int]:
    own = progress_counts(stats)
    theirs = CrawlHelper.objects.filter(run_id=run_id).values_list(*COUNTS)
    return {name: own[name] + sum(row[i] for row in theirs) for i, name in enumerate(COUNTS)}


def join_run(site: str, pid: int) -> CrawlHelper:
    """Join the running shared crawl of a site as a helper process."""
    run = CrawlRun.objects.filter(site=site, shared=True, status=RunStatus.RUNNING).order_by("-pk").first()
    if run is None:
        raise CrawlRequestError(f"no shared crawl of {site} is running; start one with crawl {site} --shared")
    return CrawlHelper.objects.create(run=run, pid=pid)


def save_helper_progress(helper_id: int, stats: dict[str, Any], finished: bool = False) -> bool:
    """A helper's heartbeat; whether it should go on (not once its run was asked to stop or ended)."""
    now = timezone.now()
    extra: dict[str, Any] = {"finished": now} if finished else {}
    CrawlHelper.objects.filter(pk=helper_id).update(reported=now, **progress_counts(stats), **extra)
    return helper_may_go_on(helper_id)


def helper_may_go_on(helper_id: int) -> bool:
    """Whether a helper goes on: not once its run was asked to stop or ended."""
    return CrawlRun.objects.filter(
        helpers=helper_id, status=RunStatus.RUNNING, stop_requested__isnull=True
    ).exists()


def helpers_at_work(run_id: int) -> bool:
    """Whether a helper of the run, on any machine, is still crawling: not finished, and reporting its
    progress (every CRAWLER_PROGRESS_SECONDS; silent for three times that, or 30 s, it is gone)."""
    silent = timedelta(seconds=max(3 * settings.CRAWLER_PROGRESS_SECONDS, 30))
    helpers = CrawlHelper.objects.filter(run_id=run_id, finished__isnull=True)
    return helpers.filter(reported__gte=timezone.now() - silent).exists()


def progress_counts(stats: dict[str, Any]) -> dict[str, int]:
    """The four figures shown while a crawl runs: pages, items, drops, errors."""
    errors = sum(
        v for k, v in stats.items() if k.startswith(("spider_exceptions/", "downloader/exception_count"))
    )
    return {
        "pages": int(stats.get("response_received_count", 0)),
        "items": int(stats.get("stancework/ingested", 0)),
        "drops": int(sum(v for k, v in stats.items() if k.startswith("stancework/drop/"))),
        "errors": int(errors + stats.get("log_count/ERROR", 0)),
    }


def _jsonable(stats: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in stats.items()}
