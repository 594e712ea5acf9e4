"""Run a spider for a CrawlRun in the current process: Scrapy settings from Django settings and the run.

Only `manage.py crawl` calls this: Twisted's reactor runs once per process, so a crawl always gets a
process of its own.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import redis
from django.conf import settings
from scrapy import Spider, signals
from scrapy.crawler import Crawler, CrawlerProcess
from scrapy.settings import Settings

from config.progress import QUIET, Progress
from config.wording import count
from crawler import reporting, services
from crawler import scrapy_settings as project_settings
from crawler.models import CrawlHelper, CrawlRun, RunStatus
from crawler.reporting import LIMIT_REACHED

log = logging.getLogger(__name__)

# Written into a JOBDIR when its crawl stopped gracefully, and only then.
CLEAN_STOP = "stancework-clean-stop.json"


def job_dir(run: CrawlRun) -> Path:
    """Where a crawl of this site, mode and base URL keeps its resumable state (JOBDIR).

    Keyed by the base URL (scheme, host and port) its requests go to: a saved queue holds full
    URLs, so it is resumed only by a crawl of the same base. A crawl of the same site elsewhere (a
    local copy on another port) starts afresh instead of fetching dead addresses."""
    if run.archive_from:
        wayback = _base_key(settings.CRAWLER_WAYBACK_URL)
        name = f"{run.site}-archive-{run.archive_from}-{run.archive_to}-{wayback}"
    else:
        name = f"{run.site}-{_base_key(run.start_urls[0]) if run.start_urls else 'live'}"
    return Path(settings.CRAWLER_DIR) / "jobs" / name


def _base_key(url: str) -> str:
    """`https://idebate.net/x` → `https-idebate.net`; `http://127.0.0.1:8123/` → `http-127.0.0.1-8123`."""
    parts = urlsplit(url)
    return re.sub(r"[^A-Za-z0-9.]+", "-", f"{parts.scheme}-{parts.netloc}").strip("-") or "live"


def prepare_job_dir(path: Path, resume: bool) -> tuple[str, int | None]:
    """Keep a JOBDIR only when the run that left it stopped cleanly; (what was done, that run's id).

    Scrapy's own files prove nothing: `spider.state` survives from an earlier clean stop when a
    later, resumed run is killed, and resuming that half-consumed queue stalls for ever. So a clean
    stop writes a marker naming its run, and a crawl removes it before it starts: after a kill
    there is no marker, and the state is discarded. The page store and the HTTP cache make a fresh
    start cheap and duplicate-free.
    """
    marker = path / CLEAN_STOP
    stopped_run = _clean_stop_run(marker)
    if resume and stopped_run is not None:
        marker.unlink()
        return f"resuming from {path} (left by run {stopped_run}, stopped cleanly)", stopped_run
    if not path.exists():
        return "", None
    shutil.rmtree(path)
    why = "asked" if not resume else "the previous crawl did not stop cleanly"
    return f"previous crawl state discarded ({why})", None


def _clean_stop_run(marker: Path) -> int | None:
    try:
        return int(json.loads(marker.read_text())["run"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _mark_clean_stop(jobdir: Path, run_id: int) -> Callable[..., None]:
    """A spider_closed handler: after a graceful stop Scrapy has saved its queue; say so last."""

    def closed(spider: Spider, reason: str) -> None:
        stats = spider.crawler.stats.get_stats() if spider.crawler.stats else {}
        if reporting.stopped_short(reason, stats, getattr(spider, "limit", None)) and jobdir.exists():
            (jobdir / CLEAN_STOP).write_text(json.dumps({"run": run_id}))

    return closed


def scrapy_settings(
    jobdir: Path | None,
    shared_run: int | None = None,
    routes: dict[str, str] | None = None,
    limited: bool = False,
) -> Settings:
    """The crawl's settings: resumable state in ``jobdir``; or, for a shared run, the request queue
    and dupefilter in Redis (scrapy-redis), kept while any process of the run works, and one
    politeness delay per site across all of them. ``routes``: where a local copy is served
    (`serving`); ``limited``: the crawl stops at a `--limit`."""
    values = Settings()
    # Imported with this module, not now: it sets Django up (for `scrapy` run on its own), which
    # configures logging again and would undo `logging_to_run_log` mid-crawl.
    values.setmodule(project_settings, priority="project")
    if jobdir is not None:
        values.set("JOBDIR", str(jobdir), priority="cmdline")
    if routes:
        values.set("STANCEWORK_LOCAL_ROUTES", routes, priority="cmdline")
        values.setdict(SAVED_PAGES_PACE, priority="cmdline")
    if settings.CRAWLER_DOWNLOAD_DELAY_MS >= 0:
        values.set("DOWNLOAD_DELAY", settings.CRAWLER_DOWNLOAD_DELAY_MS / 1000, priority="cmdline")
    if limited:
        values.setdict(ONE_PAGE_AT_A_TIME, priority="cmdline")
    if shared_run is not None:
        _share_the_queue(values, shared_run)
    return values


def _share_the_queue(values: Settings, shared_run: int) -> None:
    """A shared run's request queue and dupefilter in Redis, and one politeness delay across its processes."""
    if not settings.REDIS_URL:
        raise services.CrawlRequestError("a shared crawl needs REDIS_URL (its queue lives in Redis)")
    queue, seen = shared_keys(shared_run)
    shared = {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "REDIS_URL": settings.REDIS_URL,
        "SCHEDULER_PERSIST": True,
        "SCHEDULER_QUEUE_KEY": queue,
        "SCHEDULER_DUPEFILTER_KEY": seen,
        # The delay is kept across processes by SharedPoliteness, not per process, and a process
        # takes one request at a time, so the one holding the site's slot is the one sent.
        "AUTOTHROTTLE_ENABLED": False,
        "CONCURRENT_REQUESTS": 1,
        # and only once its last page is stored: storing blocks the reactor, which would hold
        # a request that already has the slot.
        "SCRAPER_SLOT_MAX_ACTIVE_SIZE": 1,
    }
    values.setdict(shared, priority="cmdline")
    middlewares = dict(values.getdict("DOWNLOADER_MIDDLEWARES"))
    middlewares["crawler.middlewares.SharedPoliteness"] = 40
    values.set("DOWNLOADER_MIDDLEWARES", middlewares, priority="cmdline")


# Saved pages served on this machine: no site is behind them to be polite to
# (CRAWLER_DOWNLOAD_DELAY_MS still sets a delay when given).
SAVED_PAGES_PACE = {"DOWNLOAD_DELAY": 0.0, "AUTOTHROTTLE_ENABLED": False}
# A crawl with a `--limit` fetches its next page only once the last one is read and stored, so it
# fetches none once the limit is reached: its counts are those of the pages it needed, the same on
# every run of the same pages, and nothing is fetched only to be dropped as over the limit.
ONE_PAGE_AT_A_TIME = {"CONCURRENT_REQUESTS": 1, "SCRAPER_SLOT_MAX_ACTIVE_SIZE": 1}


def shared_keys(run_id: int) -> tuple[str, str]:
    """The Redis keys of a shared run's request queue and its seen-requests set."""
    return f"stancework:crawl:{run_id}:requests", f"stancework:crawl:{run_id}:seen"


def run_spider(
    run: CrawlRun,
    resume: bool = True,
    progress: Progress = QUIET,
    helper: CrawlHelper | None = None,
    routes: dict[str, str] | None = None,
) -> str:
    """Crawl to the end (or the limit); the RunProgress extension keeps the run row current, and
    `progress` counts the pages fetched as they come. A shared run keeps its queue in Redis instead
    of a JOBDIR; ``helper``: this process joined the shared run; ``routes``: see `serving`."""
    jobdir = job_dir(run)
    note, resumed_from = ("", None) if run.shared else prepare_job_dir(jobdir, resume)
    if note:
        log.info("%s", note)
    process = _crawler_process(run, jobdir, routes)
    # Spiders are named after their site; Scrapy's spider loader finds them in SPIDER_MODULES.
    crawler = process.create_crawler(run.site)
    # Kept referenced here: signal handlers are held weakly.
    mark_clean_stop = _mark_clean_stop(jobdir, run.pk)
    crawler.signals.connect(mark_clean_stop, signal=signals.spider_closed)
    limit = _remaining_limit(run, resumed_from)
    if limit == 0:
        # The runs it resumes reached the limit: nothing is left to crawl, nor state to keep.
        reporting.finish_run(run.pk, RunStatus.FINISHED, message=LIMIT_REACHED)
        shutil.rmtree(jobdir, ignore_errors=True)
        return note
    process.crawl(
        crawler,
        run_id=run.pk,
        archive=run.archive_range,
        start_urls=list(run.start_urls),
        limit=limit,
        resumed_from=resumed_from,
        shared=run.shared,
        helper_id=helper.pk if helper else None,
    )
    _crawl_to_the_end(process, crawler, run, limit, progress)
    _clean_up_after(run, jobdir, crawler, helper)
    return note


def _crawler_process(run: CrawlRun, jobdir: Path, routes: dict[str, str] | None) -> CrawlerProcess:
    """A Scrapy process with the run's settings: a JOBDIR, or for a shared run the queue in Redis."""
    shared_run = run.pk if run.shared else None
    process = CrawlerProcess(
        scrapy_settings(None if run.shared else jobdir, shared_run, routes, limited=bool(run.limit)),
        install_root_handler=False,
    )
    # Django's LOGGING owns the root handler; keep Scrapy's own loggers at the crawl's level.
    logging.getLogger("scrapy").setLevel(process.settings.get("LOG_LEVEL", "INFO"))
    return process


def _remaining_limit(run: CrawlRun, resumed_from: int | None) -> int | None:
    """`--limit` counts the whole crawl: the debates the runs it resumes ingested count too."""
    limit = reporting.limit_left(run.limit, resumed_from)
    if limit != run.limit:
        log.info("--limit %s: %s debates left after the runs this one resumes", run.limit, limit)
    return limit


def _crawl_to_the_end(
    process: CrawlerProcess, crawler: Crawler, run: CrawlRun, limit: int | None, progress: Progress
) -> None:
    """Run the reactor until the crawl stops, counting pages; a crash is recorded on the run first.
    The limit (what is left of `--limit`) counts debates ingested, not pages: it is named, never
    the pages' total."""
    at_most = f", at most {count(limit, 'debate')}" if limit else ""
    try:
        with progress.stage(f"crawl {run.site} (run {run.pk}{at_most})", unit="pages") as fetched:
            on_page = _count_pages(fetched)  # referenced here: signal handlers are held weakly
            crawler.signals.connect(on_page, signal=signals.response_received)
            process.start()
    except Exception as error:
        # The crawl process is ending anyway: record why on the run before the traceback surfaces.
        reporting.finish_run(run.pk, RunStatus.FAILED, message=f"{type(error).__name__}: {error}")
        raise


def _clean_up_after(run: CrawlRun, jobdir: Path, crawler: Crawler, helper: CrawlHelper | None) -> None:
    """Drop the state a stopped crawl must not leave behind: a finished shared queue, a spent JOBDIR."""
    stats = crawler.stats.get_stats() if crawler.stats else {}
    limit = getattr(crawler.spider, "limit", None)
    if run.shared and helper is None:
        # The run's own process closes last (it waits for its helpers): the shared queue goes with it.
        redis.Redis.from_url(settings.REDIS_URL).delete(*shared_keys(run.pk))
    if not reporting.stopped_short(str(stats.get("finish_reason")), stats, limit) and jobdir.exists():
        # Only a graceful stop (SIGTERM, the admin's Stop) leaves state worth resuming. After the
        # end or a limit, the seen-requests would make the next crawl skip pages never ingested.
        shutil.rmtree(jobdir)


def _count_pages(advance: Callable[[int], None]) -> Callable[..., None]:
    def on_page(**_: object) -> None:
        advance(1)

    return on_page


@contextmanager
def logging_to_run_log(run: CrawlRun, shown: bool = False) -> Iterator[Path]:
    """Every log line of the crawl (Scrapy's own: its warnings, each dropped item, its statistics)
    goes to the run's log; to the terminal as well only when ``shown`` (`-v 2`), so a terminal
    reads the command's own summary. Yields the log's path.

    Appended a whole line at a time, never replaced: a launched crawl's output goes to the same file,
    and a crawl killed midway leaves its log up to its last line."""
    path = services.run_log_path(run.pk)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    root = logging.getLogger()
    # In the terminal's format (config/settings.py LOGGING).
    handler.setFormatter(next((h.formatter for h in root.handlers if h.formatter), None))
    hidden = [] if shown else list(root.handlers)
    for terminal in hidden:
        root.removeHandler(terminal)
    root.addHandler(handler)
    try:
        yield path
    finally:
        root.removeHandler(handler)
        handler.close()
        for terminal in hidden:
            root.addHandler(terminal)


@contextmanager
def serving(pages: str, run: CrawlRun) -> Iterator[dict[str, str]]:
    """With a folder of saved idebate pages: serve them on 127.0.0.1 and point the run at them.
    Yields the routes for `run_spider`: the pages' address → where they are served now.

    The server lives in the crawl's own process, so a caller that only starts the crawl (the
    pipeline's step) need not stay to serve it."""
    if not pages:
        yield {}
        return
    from crawler.local_site import LocalSite, preferred_port

    # One address per folder, whatever port serves it (another when the folder's own is taken):
    # the crawl's saved state, its cache and the page store hold URLs, so a stopped crawl of the
    # saved pages resumes, and no page is stored twice under two ports.
    folder = Path(pages)
    address = f"http://127.0.0.1:{preferred_port(folder)}"
    with LocalSite.idebate(folder).serve(port=preferred_port(folder)) as site:
        if site.url != address:
            log.info("%s is taken: the saved pages are served at %s under their own URLs", address, site.url)
        run.start_urls = [f"{address}/debatabase/all"]
        CrawlRun.objects.filter(pk=run.pk).update(start_urls=run.start_urls)
        yield {address: site.url}
