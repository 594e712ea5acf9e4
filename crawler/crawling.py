"""Run a spider for a CrawlRun in the current process: Scrapy settings from Django settings and the run.

Only `manage.py crawl` calls this: Twisted's reactor runs once per process, so a crawl always gets a
process of its own.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from django.conf import settings
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from crawler import services
from crawler.models import CrawlRun, RunStatus

log = logging.getLogger(__name__)


def job_dir(run: CrawlRun) -> Path:
    """Where a crawl of this site and mode keeps its resumable state (JOBDIR)."""
    name = run.site if not run.archive_from else f"{run.site}-archive-{run.archive_from}-{run.archive_to}"
    return Path(settings.CRAWLER_DIR) / "jobs" / name


def prepare_job_dir(path: Path, resume: bool) -> str:
    """Keep a JOBDIR left by a clean stop; start over from one left by a killed process.

    Scrapy writes its queue's index only on a clean close; after a kill the seen-requests file
    would silently skip pages never ingested. The page store and the HTTP cache make a fresh
    start cheap and duplicate-free.
    """
    if not path.exists():
        return ""
    clean = (path / "spider.state").exists()
    if resume and clean:
        return f"resuming from {path}"
    shutil.rmtree(path)
    return "previous crawl state discarded (" + ("asked" if not resume else "unclean stop") + ")"


def scrapy_settings(jobdir: Path) -> Settings:
    values = Settings()
    values.setmodule("crawler.scrapy_settings", priority="project")
    values.set("JOBDIR", str(jobdir), priority="cmdline")
    if settings.CRAWLER_DOWNLOAD_DELAY_MS >= 0:
        values.set("DOWNLOAD_DELAY", settings.CRAWLER_DOWNLOAD_DELAY_MS / 1000, priority="cmdline")
    return values


def run_spider(run: CrawlRun, resume: bool = True) -> str:
    """Crawl to the end (or the limit); the RunProgress extension keeps the run row current."""
    jobdir = job_dir(run)
    note = prepare_job_dir(jobdir, resume)
    if note:
        log.info("%s", note)
    process = CrawlerProcess(scrapy_settings(jobdir), install_root_handler=False)
    # Django's LOGGING owns the root handler; keep Scrapy's own loggers at the crawl's level.
    logging.getLogger("scrapy").setLevel(process.settings.get("LOG_LEVEL", "INFO"))
    # Spiders are named after their site; Scrapy's spider loader finds them in SPIDER_MODULES.
    crawler = process.create_crawler(run.site)
    process.crawl(
        crawler, run_id=run.pk, archive=run.archive_range, start_urls=list(run.start_urls), limit=run.limit
    )
    try:
        process.start()
    except Exception as error:
        # The crawl process is ending anyway: record why on the run before the traceback surfaces.
        services.finish_run(run.pk, RunStatus.FAILED, message=f"{type(error).__name__}: {error}")
        raise
    reason = crawler.stats.get_value("finish_reason") if crawler.stats else None
    if reason != "shutdown" and jobdir.exists():
        # Only a graceful stop (SIGTERM, the admin's Stop) leaves state worth resuming. After the
        # end or a limit, the seen-requests would make the next crawl skip pages never ingested.
        shutil.rmtree(jobdir)
    return note
