"""Crawl services: runs and their progress, the page store, drops, and starting a crawl process.

Scrapy never runs in the web or Celery process: `launch_crawl` starts `manage.py crawl` as a
child process, which reports back through the CrawlRun row.
"""

from __future__ import annotations

import hashlib
import logging
import socket
import subprocess
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from crawler import processes
from crawler.models import CrawlHelper, CrawlMode, CrawlRun, Drop, Page, PageVersion, RunStatus
from crawler.parsing import SITES
from operations.queueing import registered_task

log = logging.getLogger(__name__)

PROCESS_GONE = "its crawl process is gone (killed, crashed, or its machine lost)"
STOPPED_BEFORE_START = "stopped before a crawl process took it up"
# A queued run no process took up in this long was never launched (a lost task, a stopped worker).
QUEUED_TIMEOUT = timedelta(minutes=15)
# The task that starts a run's crawl process (crawler/tasks.py registers it under this name).
LAUNCH_CRAWL_TASK = "crawler.tasks.launch_crawl_task"


class CrawlRequestError(ValueError):
    """A crawl was asked for with arguments that cannot work."""


@dataclass(frozen=True)
class StoredPage:
    version_id: int
    page_id: int
    created: bool


def content_hash(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def parse_archive_range(value: str) -> tuple[str, str]:
    """'2012:2019' → ('2012', '2019'): Wayback timestamp prefixes (yyyy[mm[dd…]])."""
    start, sep, end = value.partition(":")
    if (
        not sep
        or not (start.isdigit() and end.isdigit())
        or not (4 <= len(start) <= 14 and 4 <= len(end) <= 14)
    ):
        raise CrawlRequestError(
            f"--archive wants FROM:TO as Wayback timestamps (e.g. 2012:2019), not {value!r}"
        )
    if start[:4] > end[:4]:
        raise CrawlRequestError(f"archive range {value!r} ends before it starts")
    return start, end


def create_run(
    site: str,
    archive: str = "",
    limit: int | None = None,
    start_urls: list[str] | None = None,
    user_id: int | None = None,
    pid: int | None = None,
    shared: bool = False,
) -> CrawlRun:
    """A queued CrawlRun; the crawl process picks it up by id. One active run per site and mode.

    `pid`: the process that will crawl it, when that is the caller itself (`manage.py crawl`)."""
    _check_request(site, limit)
    start, end = parse_archive_range(archive) if archive else ("", "")
    mode = CrawlMode.ARCHIVE if archive else CrawlMode.LIVE
    # A crawl that died without a word still says "running": settle it before it blocks this one.
    fail_dead_runs(site=site, mode=mode)
    try:
        with transaction.atomic():
            return CrawlRun.objects.create(
                site=site,
                mode=mode,
                archive_from=start,
                archive_to=end,
                limit=limit,
                start_urls=list(start_urls or []),
                requested_by_id=user_id,
                **(_process_fields(pid) if pid else {}),
                # Its own crawl process made it: alive from now, so a kill before the spider opens
                # is noticed after the heartbeat limit, not the queued timeout.
                heartbeat=timezone.now() if pid else None,
                shared=shared,
            )
    except IntegrityError:
        raise _already_active(site, mode) from None


def _check_request(site: str, limit: int | None) -> None:
    if site not in SITES:
        raise CrawlRequestError(f"unknown site {site!r}; known: {', '.join(SITES)}")
    if limit is not None and limit < 1:
        raise CrawlRequestError("--limit must be at least 1")


def _already_active(site: str, mode: str) -> CrawlRequestError:
    """The refusal of a second active run of a site and mode, naming the one that holds it."""
    active = CrawlRun.objects.filter(site=site, mode=mode, status__in=RunStatus.active()).first()
    return CrawlRequestError(
        f"a {mode} crawl of {site} is already active (run {active.pk if active else '?'}); "
        "stop it or wait for it to end"
    )


def request_crawl(
    site: str, archive: str = "", limit: int | None = None, user_id: int | None = None, shared: bool = False
) -> CrawlRun:
    """Create a run and start its crawl process through Celery once the run is committed."""
    with transaction.atomic():
        if shared and not settings.REDIS_URL:
            raise CrawlRequestError("a shared crawl needs REDIS_URL (its queue lives in Redis)")
        run = create_run(site, archive=archive, limit=limit, user_id=user_id, shared=shared)
        actor = run.requested_by if user_id is not None else None
        audit.record(
            actor, AuditEvent.Action.CRAWL, f"crawl {run.pk} of {site}", archive=archive, limit=limit
        )
        # Enqueue after commit: the worker must find the run. (celery-types lacks delay_on_commit.)
        registered_task(LAUNCH_CRAWL_TASK).delay_on_commit(run.pk)  # type: ignore[attr-defined]
    return run


def crawl_command(run: CrawlRun) -> list[str]:
    return [
        sys.executable,
        str(Path(settings.BASE_DIR) / "manage.py"),
        "crawl",
        run.site,
        "--run",
        str(run.pk),
    ]


def launch_crawl(run_id: int) -> int:
    """Start the crawl of a queued run as its own process; returns the pid. Never runs Scrapy here."""
    return start_crawl_process(run_id).pid


def start_crawl_process(
    run_id: int, env: dict[str, str] | None = None, extra_args: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """`manage.py crawl` for a queued run in its own process, logging to the run's log file.

    The caller may wait for it (the pipeline does) or leave it running (the admin's launch)."""
    run = CrawlRun.objects.get(pk=run_id)
    if run.status != RunStatus.QUEUED:
        raise CrawlRequestError(f"run {run_id} is {run.status}, not queued")
    log_dir = Path(settings.CRAWLER_DIR) / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / f"run-{run_id}.log", "ab") as log_file:
        process = subprocess.Popen(
            [*crawl_command(run), *(extra_args or [])],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=settings.BASE_DIR,
            env=env,
            # Its own session: the crawl outlives the worker task that started it.
            start_new_session=True,
        )
    CrawlRun.objects.filter(pk=run_id).update(**_process_fields(process.pid))
    return process


def _process_fields(pid: int) -> dict[str, Any]:
    """Who crawls a run, as this process sees it: pid, start time, pid namespace and host name."""
    described = processes.describe(pid)
    return {
        "pid": pid,
        "pid_started": described.started if described else None,
        "pid_namespace": processes.pid_namespace(),
        "host": socket.gethostname()[:255],
    }


def stop_crawl(run_id: int) -> bool:
    """Ask a crawl to stop gracefully, from any process, container or machine: the request is written
    on the run, and the crawl reads it within CRAWLER_PROGRESS_SECONDS, finishes what is in flight and
    saves its queue (a later crawl of the site resumes it). A queued run no process took up yet is
    stopped at once. Whether the run was active."""
    now = timezone.now()
    if CrawlRun.objects.filter(pk=run_id, status=RunStatus.QUEUED, heartbeat__isnull=True).update(
        status=RunStatus.STOPPED, stop_requested=now, finished=now, message=STOPPED_BEFORE_START
    ):
        return True
    asked = CrawlRun.objects.filter(pk=run_id, status__in=RunStatus.active(), stop_requested__isnull=True)
    return (
        bool(asked.update(stop_requested=now))
        or CrawlRun.objects.filter(pk=run_id, status__in=RunStatus.active()).exists()
    )


def heartbeat_limit() -> timedelta:
    return timedelta(seconds=settings.CRAWLER_HEARTBEAT_LIMIT_SECONDS)


def fail_dead_runs(site: str | None = None, mode: str | None = None) -> list[int]:
    """Fail the active runs whose crawl went silent: a running one whose heartbeat is older than
    CRAWLER_HEARTBEAT_LIMIT_SECONDS, a queued one no process took up in QUEUED_TIMEOUT. Their ids.

    Decided by the run's row, so it holds wherever the crawl ran; beat runs it every minute
    (`crawler.fail_silent_runs`), and a crawl request runs it for its site first. A caller in the
    crawl's own pid namespace also fails at once a run whose process is gone (crawler.processes)."""
    runs = CrawlRun.objects.filter(status__in=RunStatus.active())
    if site is not None:
        runs = runs.filter(site=site)
    if mode is not None:
        runs = runs.filter(mode=mode)
    now = timezone.now()
    silent = Q(heartbeat__lt=now - heartbeat_limit()) | Q(
        heartbeat__isnull=True, created__lt=now - QUEUED_TIMEOUT
    )
    here = processes.pid_namespace()
    # In the crawl's own pid namespace its pid can be looked at: gone, it need not be waited for.
    gone_here = Q(pid_namespace=here, pid__isnull=False) if here else Q(pk__in=[])
    failed = []
    for run in runs.filter(silent | gone_here):
        if not _silent(run, now) and processes.is_crawl_of(run.pid or 0, run.pid_started, run.pk):
            continue
        reason = _silence(run, now) if _silent(run, now) else PROCESS_GONE
        # Conditional on what was read: a run that reported or ended meanwhile keeps its own state.
        if CrawlRun.objects.filter(pk=run.pk, status=run.status, heartbeat=run.heartbeat).update(
            status=RunStatus.FAILED, finished=now, message=reason
        ):
            log.warning("crawl %s failed: %s", run.pk, reason)
            failed.append(run.pk)
    return failed


def _silent(run: CrawlRun, now: Any) -> bool:
    if run.heartbeat is None:
        return bool(run.created < now - QUEUED_TIMEOUT)
    return bool(run.heartbeat < now - heartbeat_limit())


def _silence(run: CrawlRun, now: Any) -> str:
    if run.heartbeat is None:
        return f"no crawl process took it up in {QUEUED_TIMEOUT} (a lost task or a stopped worker)"
    silent = int((now - run.heartbeat).total_seconds())
    return (
        f"no heartbeat for {silent} s (the limit is {settings.CRAWLER_HEARTBEAT_LIMIT_SECONDS} s): "
        f"{PROCESS_GONE}"
    )


def start_run(run_id: int, pid: int, resumed_from: int | None = None) -> bool:
    """The crawl process of a run has opened its spider: record who it is. False when the run is no
    longer queued (stopped before it started): then the crawl must not go on."""
    now = timezone.now()
    return bool(
        CrawlRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
            status=RunStatus.RUNNING,
            **_process_fields(pid),
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


def finish_run(run_id: int, status: str, stats: dict[str, Any] | None = None, message: str = "") -> None:
    """End an active run; one already ended (failed for silence, stopped before it started) keeps
    its ending and its reason."""
    fields: dict[str, Any] = {"status": status, "finished": timezone.now(), "message": message}
    if stats is not None:
        fields.update(stats=_jsonable(stats), **_with_helpers(run_id, stats))
    CrawlRun.objects.filter(pk=run_id, status__in=RunStatus.active()).update(**fields)


def ending_of(reason: str, stats: dict[str, Any]) -> tuple[str, str]:
    """A closed crawl's status and message, from Scrapy's close reason and the crawl's stats."""
    if reason == "shutdown":
        return RunStatus.STOPPED, "stopped on request; a later crawl of the site resumes it"
    failed = failed_requests(stats)
    if failed:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(failed.items()))
        total = sum(failed.values())
        return RunStatus.FINISHED_WITH_ERRORS, f"closed: {reason}; {total} requests failed for good ({kinds})"
    return RunStatus.FINISHED, f"closed: {reason}"


FAILED_PREFIX = "stancework/failed_request/"


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


def store_page(
    run_id: int | None,
    site: str,
    canonical_url: str,
    body: bytes,
    fetched_url: str,
    http_status: int = 200,
    archive_timestamp: str = "",
) -> StoredPage:
    """Store a fetched page once: by canonical URL, and a new version only when its content changed."""
    digest = content_hash(body)
    with transaction.atomic():
        page, _ = Page.objects.get_or_create(canonical_url=canonical_url, defaults={"site": site})
        version, created = PageVersion.objects.get_or_create(
            page=page,
            content_hash=digest,
            defaults={
                "body": body,
                "fetched_url": fetched_url,
                "http_status": http_status,
                "archive_timestamp": archive_timestamp,
                "first_run_id": run_id,
                "last_run_id": run_id,
            },
        )
        if not created:
            PageVersion.objects.filter(pk=version.pk).update(last_run_id=run_id, last_seen=timezone.now())
        Page.objects.filter(pk=page.pk).update(last_seen=timezone.now())
    return StoredPage(version_id=version.pk, page_id=page.pk, created=created)


def record_drop(run_id: int | None, url: str, reason: str, detail: str = "") -> None:
    log.warning("dropped %s: %s %s", url, reason, detail)
    if run_id is None:
        return
    Drop.objects.create(run_id=run_id, url=url[:2000], reason=reason[:64], detail=detail)
