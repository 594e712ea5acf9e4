"""Kill local crawls at random points and run them again: the crash tests' driver, run as its own process.

`python -m tests.crawler.crash_harness START_URL SEED CYCLES` with DATABASE_URL and CRAWLER_DIR set.
Each cycle forgets what the last one crawled, starts a crawl and kills it (SIGTERM or SIGKILL, at a random
moment), starts it again and kills that too, then runs it once more to the end, and prints one JSON
line: the signals, what the last run ended as, and what the database holds.

Every crawl is a forked child of this process, which has imported Django and Scrapy once (the
Twisted reactor is created only in the child), so a cycle costs the crawl, not the imports. The
kill itself is the same as for `manage.py crawl`: a signal to the crawl's process.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402

import crawler.crawling  # noqa: E402,F401 - imported once here, before the forks
from corpus.models import Claim  # noqa: E402
from crawler.models import CrawlRun, Debate, Page, PageVersion, Point  # noqa: E402

# A full crawl of the harness's site takes about this long; kills land anywhere in it.
CRAWL_SECONDS = 0.8
RERUN_TIMEOUT = 60.0


def start_crawl(start_url: str) -> int:
    connections.close_all()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        from crawler import services
        from crawler.crawling import run_spider

        run_spider(services.create_run("idebate", start_urls=[start_url], pid=os.getpid()))
        code = 0
    finally:
        os._exit(code)


def wait(pid: int, timeout: float) -> bool:
    """Reap the child; False when it had not ended within `timeout` (then it is killed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False


def interrupted_run(start_url: str, rng: random.Random) -> str:
    pid = start_crawl(start_url)
    time.sleep(rng.uniform(0.0, CRAWL_SECONDS))
    name = rng.choice(["SIGTERM", "SIGKILL"])
    with contextlib.suppress(ProcessLookupError):  # it may have finished already
        os.kill(pid, getattr(signal, name))
    # A SIGTERM lets Scrapy finish what is in flight: give it the time a graceful stop needs.
    if not wait(pid, RERUN_TIMEOUT):
        name += " (did not stop)"
    return name


def cycle(start_url: str, rng: random.Random) -> dict[str, object]:
    started = time.monotonic()
    forget_everything()
    signals = [interrupted_run(start_url, rng) for _ in range(2)]
    pid = start_crawl(start_url)
    finished_in_time = wait(pid, RERUN_TIMEOUT)
    last = CrawlRun.objects.order_by("-pk").first()
    return {
        "signals": signals,
        "rerun_ended": finished_in_time,
        "rerun_status": last.status if last else "",
        "active_runs": CrawlRun.objects.filter(status__in=["queued", "running"]).count(),
        "debates": Debate.objects.count(),
        "pages": Page.objects.count(),
        "distinct_pages": Page.objects.values("canonical_url").distinct().count(),
        "versions": PageVersion.objects.count(),
        "seconds": round(time.monotonic() - started, 2),
    }


def forget_everything() -> None:
    """What a cycle's crawls wrote: runs, pages, debates and their claims, and the HTTP cache (the
    crawls run with it, as in production, so a kill can land while it writes an entry)."""
    shutil.rmtree(settings.CRAWLER_DIR / "httpcache", ignore_errors=True)
    Point.objects.all().delete()
    Debate.objects.all().delete()
    PageVersion.objects.all().delete()
    Page.objects.all().delete()
    CrawlRun.objects.all().delete()
    Claim.objects.all().delete()


def main() -> None:
    start_url, seed, cycles = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    for _ in range(cycles):
        print(json.dumps(cycle(start_url, rng)), flush=True)


if __name__ == "__main__":
    main()
