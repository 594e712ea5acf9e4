"""`manage.py crawl <site> [--archive FROM:TO] [--limit N] [--shared | --join]`: run one spider in this
process, to the end. `--shared` keeps the crawl's queue in Redis; `--join` helps a shared crawl of the
site that is running (here or on another machine).

It prints one line per stage and the run's closing line (crawler.summary); Scrapy's own log goes to
the run's log, and to the terminal as well with `-v 2`."""

from __future__ import annotations

import os
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.progress import shown_on
from crawler import reporting, services, summary
from crawler.crawling import logging_to_run_log, run_spider, serving
from crawler.models import CrawlHelper, CrawlRun
from crawler.parsing import SITES


class Command(BaseCommand):
    help = "Crawl a debate site (live, or as the Wayback Machine stored it) into the corpus."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("site", choices=SITES)
        parser.add_argument(
            "--archive", default="", metavar="FROM:TO", help="crawl Wayback snapshots, e.g. 2012:2019"
        )
        parser.add_argument("--limit", type=int, default=None, help="stop after N debates")
        parser.add_argument(
            "--start-url", action="append", default=[], help="listing or debate URL to start from"
        )
        parser.add_argument("--run", type=int, default=None, help="id of a queued CrawlRun (the admin's)")
        parser.add_argument("--no-resume", action="store_true", help="forget the saved crawl state first")
        together = parser.add_mutually_exclusive_group()
        together.add_argument(
            "--shared", action="store_true", help="keep the queue in Redis so other processes can --join"
        )
        together.add_argument(
            "--join",
            action="store_true",
            help="help the running shared crawl of this site (its queue in Redis)",
        )
        parser.add_argument(
            "--wait", action="store_true", help="with --join: wait until a shared crawl of the site runs"
        )
        parser.add_argument(
            "--serve-saved-pages",
            default="",
            metavar="DIR",
            help="serve these saved idebate pages on 127.0.0.1 for the crawl's lifetime and crawl them",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run, helper = self._crawl_of(options)
        with logging_to_run_log(run, shown=options["verbosity"] > 1) as log:
            self.stderr.write(f"crawl {run.pk}: Scrapy's own log goes to {log}")
            with serving(options["serve_saved_pages"], run) as routes:
                note = run_spider(
                    run,
                    resume=not options["no_resume"],
                    progress=shown_on(self.stderr),
                    helper=helper,
                    routes=routes,
                )
        run.refresh_from_db()
        if helper is not None:
            helper.refresh_from_db()
            self.stdout.write(
                f"helped crawl {run.pk} {run.site}: pages {helper.pages}, debates {helper.items}"
            )
            return
        for line in [*summary.stage_lines(run), summary.closing_line(run, note)]:
            self.stdout.write(line)

    def _crawl_of(self, options: dict[str, Any]) -> tuple[CrawlRun, CrawlHelper | None]:
        """The run this process crawls: one it joins as a helper (and the helper), one named, or a new one."""
        try:
            if options["join"]:
                helper = self._join(options["site"], options["wait"])
                return helper.run, helper
            if options["run"] is not None:
                return CrawlRun.objects.get(pk=options["run"]), None
            run = services.create_run(
                options["site"],
                archive=options["archive"],
                limit=options["limit"],
                start_urls=options["start_url"],
                pid=os.getpid(),
                shared=options["shared"],
            )
        except (services.CrawlRequestError, CrawlRun.DoesNotExist) as error:
            raise CommandError(str(error)) from None
        return run, None

    def _join(self, site: str, wait: bool) -> CrawlHelper:
        while True:
            try:
                return reporting.join_run(site, os.getpid())
            except services.CrawlRequestError:
                if not wait:
                    raise
            time.sleep(JOIN_POLL_SECONDS)


JOIN_POLL_SECONDS = 10
