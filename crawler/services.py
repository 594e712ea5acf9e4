"""Crawl services: runs requested, started, stopped and failed from outside their crawl (the admin,
the API, the pipeline, beat), the page store, and drops.

Scrapy never runs in the web or Celery process: `launch_crawl` starts `manage.py crawl` as a
child process, which reports back through the CrawlRun row (crawler.reporting).
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from crawler import processes, targets
from crawler.models import CrawlMode, CrawlRun, Debate, Drop, Page, PageVersion, RunStatus
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


class StartUrlRefused(CrawlRequestError):
    """A start URL off the site's own hosts (crawler.targets)."""


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
    check_start_urls(site, start_urls or [])
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
                **(processes.run_identity(pid) if pid else {}),
                # Its own crawl process made it: alive from now, so a kill before the spider opens
                # is noticed after the heartbeat limit, not the queued timeout.
                heartbeat=timezone.now() if pid else None,
                shared=shared,
            )
    except IntegrityError:
        raise _already_active(site, mode) from None


def _check_request(site: str, limit: int | None) -> None:
    from crawler.parsing import SITES  # loads the page parsers (lxml): on a request, not with the admin

    if site not in SITES:
        raise CrawlRequestError(f"unknown site {site!r}; known: {', '.join(SITES)}")
    if limit is not None and limit < 1:
        raise CrawlRequestError("--limit must be at least 1")


def check_start_urls(site: str, urls: list[str]) -> None:
    """Refuse start URLs off the site's own hosts, naming the first and why (crawler.targets)."""
    for url in urls:
        reason = targets.refusal(str(url), site, settings.CRAWLER_EXTRA_ORIGINS)
        if reason:
            raise StartUrlRefused(f"start URL refused: {reason}")


def _already_active(site: str, mode: str) -> CrawlRequestError:
    """The refusal of a second active run of a site and mode, naming the one that holds it."""
    active = CrawlRun.objects.filter(site=site, mode=mode, status__in=RunStatus.active()).first()
    return CrawlRequestError(
        f"a {mode} crawl of {site} is already active (run {active.pk if active else '?'}); "
        "stop it or wait for it to end"
    )


def request_crawl(
    site: str,
    archive: str = "",
    limit: int | None = None,
    user_id: int | None = None,
    shared: bool = False,
    saved_pages: bool = False,
    start_urls: list[str] | None = None,
) -> CrawlRun:
    """Create a run and start its crawl process through Celery once the run is committed; with
    `saved_pages`, the crawl reads the saved pages served on this machine instead of the site."""
    if saved_pages:
        saved_pages_launch(site)  # refuse now, on the form, rather than in the worker
    with transaction.atomic():
        if shared and not settings.REDIS_URL:
            raise CrawlRequestError("a shared crawl needs REDIS_URL (its queue lives in Redis)")
        run = create_run(
            site, archive=archive, limit=limit, start_urls=start_urls, user_id=user_id, shared=shared
        )
        actor = run.requested_by if user_id is not None else None
        audit.record(
            actor, AuditEvent.Action.CRAWL, f"crawl {run.pk} of {site}", archive=archive, limit=limit
        )
        # Enqueue after commit: the worker must find the run. (celery-types lacks delay_on_commit.)
        registered_task(LAUNCH_CRAWL_TASK).delay_on_commit(run.pk, saved_pages)  # type: ignore[attr-defined]
    return run


def saved_pages_dir() -> Path:
    """Where the saved pages of SAVED_PAGES_SITE are (a folder that may not exist on this machine)."""
    return Path(settings.SHARED_FIXTURES_DIR) / SAVED_PAGES_SITE / "pages"


def saved_pages_launch(site: str) -> tuple[dict[str, str], list[str]]:
    """The environment and arguments of a crawl of the saved pages (`SHARED_FIXTURES_DIR`), served on
    127.0.0.1 for the crawl's lifetime, without a delay: no real site is behind them."""
    pages = saved_pages_dir()
    if site != SAVED_PAGES_SITE:
        raise CrawlRequestError(f"saved pages exist for {SAVED_PAGES_SITE} only, not {site}")
    if not pages.is_dir():
        raise CrawlRequestError(f"no saved pages at {pages}: crawl the live site or its web archive")
    return {**os.environ, "CRAWLER_DOWNLOAD_DELAY_MS": "0"}, ["--serve-saved-pages", str(pages)]


# The site whose saved pages ship with the project's shared data.
SAVED_PAGES_SITE = "idebate"


def crawl_command(run: CrawlRun) -> list[str]:
    return [
        sys.executable,
        str(Path(settings.BASE_DIR) / "manage.py"),
        "crawl",
        run.site,
        "--run",
        str(run.pk),
    ]


def launch_crawl(run_id: int, saved_pages: bool = False) -> int:
    """Start the crawl of a queued run as its own process; returns the pid. Never runs Scrapy here."""
    if saved_pages:
        env, extra = saved_pages_launch(CrawlRun.objects.get(pk=run_id).site)
        return start_crawl_process(run_id, env, extra).pid
    return start_crawl_process(run_id).pid


def start_crawl_process(
    run_id: int, env: dict[str, str] | None = None, extra_args: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """`manage.py crawl` for a queued run in its own process, logging to the run's log file.

    The caller may wait for it (the pipeline does) or leave it running (the admin's launch)."""
    run = CrawlRun.objects.get(pk=run_id)
    if run.status != RunStatus.QUEUED:
        raise CrawlRequestError(f"run {run_id} is {run.status}, not queued")
    log_path = run_log_path(run_id)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log_file:
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
    CrawlRun.objects.filter(pk=run_id).update(**processes.run_identity(process.pid))
    return process


def run_log_path(run_id: int) -> Path:
    """A run's log: its crawl's output when launched, and Scrapy's own log lines wherever it ran."""
    return Path(settings.CRAWLER_DIR) / "logs" / f"run-{run_id}.log"


# How long a crawl takes at most to end once Stop was asked for, at any politeness (crawler.stopping
# keeps it); the admin says so.
STOP_SECONDS = 10


def stop_crawl(run_id: int) -> bool:
    """Ask a crawl to stop gracefully, from any process, container or machine: the request is written
    on the run, and the crawl ends within STOP_SECONDS, its queue saved (a later crawl of the site
    resumes it). A queued run no process took up yet is stopped at once. Whether the run was active."""
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


def written_debates(run_id: int) -> QuerySet[Debate]:
    """The debates a run wrote into the corpus (new, or changed since the last crawl)."""
    return Debate.objects.filter(Q(first_run_id=run_id) | Q(last_run_id=run_id))


def crawled_debates(run_id: int) -> QuerySet[Debate]:
    """Every debate the run crawled: those it wrote and those it read again unchanged (their page's
    version names the run that last fetched it), in the order they were stored."""
    fetched = Debate.objects.filter(page__versions__last_run_id=run_id)
    return (written_debates(run_id) | fetched).distinct().order_by("pk")


def run_claim_ids(run_id: int) -> list[int]:
    """The cIds of the claims the run wrote, in order (what a pipeline's crawl step hands on)."""
    return sorted(written_debates(run_id).filter(claim__isnull=False).values_list("claim__cid", flat=True))
