"""Stop ends a crawl within `STOP_SECONDS` at the site's own politeness (AutoThrottle on, a long delay
between requests), and the crawl it resumes fetches every page the stopped one had not, once; a
request still in flight is cut short, and fetched again by the resume.

As in test_crawl_control: the crawl is `manage.py crawl` in its own process, the saved pages served
from 127.0.0.1 by this test (so it sees every request), Stop written from yet another process.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections import Counter
from collections.abc import Callable
from datetime import datetime

from crawler.local_site import LocalSite
from crawler.services import STOP_SECONDS
from tests.crawler.conftest import IDEBATE_PAGES, REPO
from tests.crawler.test_crawl_control import WAIT_SECONDS, manage_py, running_run, start, status_of, wait_for
from tests.crawler.test_crawl_end_to_end import DEBATES, count, crawl_args, query

# Long enough that draining the requests queued for the site (CONCURRENT_REQUESTS of them, one delay
# apart) would take longer than the bound.
POLITE_DELAY_MS = 5000


def stopped_after(site: LocalSite, env: dict[str, str], ready: Callable[[], bool]) -> tuple[int, float]:
    """Crawl politely; once `ready`, ask for Stop from another process. The run, and how long it took
    to end after the request was written (the run's own times)."""
    polite = {**env, "CRAWLER_DOWNLOAD_DELAY_MS": str(POLITE_DELAY_MS), "CRAWLER_AUTOTHROTTLE": "1"}
    polite.pop("CRAWLER_PROGRESS_SECONDS")  # the default interval
    crawl = start(crawl_args(site), polite)
    try:
        wait_for(ready, "the moment to stop", crawl)
        run = running_run(env)
        assert manage_py(env, f"from crawler import services; print(services.stop_crawl({run}))") == "True"
        wait_for(lambda: status_of(env, run) != "running", "the crawl stops", crawl)
        crawl.wait(timeout=WAIT_SECONDS)
    finally:
        if crawl.poll() is None:
            os.killpg(crawl.pid, signal.SIGKILL)
            crawl.wait()
    assert run is not None and crawl.returncode == 0
    asked, ended = query(env, f"SELECT stop_requested, finished FROM crawler_crawlrun WHERE id = {run}")[0]
    took = (datetime.fromisoformat(ended) - datetime.fromisoformat(asked)).total_seconds()
    return run, took


def resumed(site: LocalSite, env: dict[str, str], run: int) -> None:
    """Crawl again (without delay): the run resumes the stopped one and ingests every debate."""
    done = subprocess.run(crawl_args(site), cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "resuming from" in done.stdout
    runs = query(env, "SELECT status, resumed_from_id, errors FROM crawler_crawlrun ORDER BY id")
    assert runs == [("stopped", None, 0), ("finished", run, 0)], done.stdout[-3000:]
    # No page lost: every debate, every page (48 debate URLs, one saved twice, and 3 listings) stored once.
    assert count(env, "crawler_debate") == DEBATES
    assert query(env, "SELECT COUNT(*), COUNT(DISTINCT canonical_url) FROM crawler_page")[0] == (51, 51)


def test_stop_at_default_politeness_ends_the_crawl_within_the_bound_and_the_resume_loses_nothing(
    crawl_env: dict[str, str],
) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    with site.serve():
        # A debate is in: the site's queue is full (the listing named twenty).
        run, took = stopped_after(site, crawl_env, lambda: count(crawl_env, "crawler_debate") >= 1)
        assert took < STOP_SECONDS, f"stopped {took:.1f} s after it was asked"
        assert status_of(crawl_env, run) == "stopped"
        assert count(crawl_env, "crawler_debate") < DEBATES
        resumed(site, crawl_env, run)
    # None fetched twice: across both runs the site saw each of its 49 debate pages and 3 listings
    # once (robots.txt aside, once per run; the first listing's other address is linked nowhere).
    pages = Counter(path for path in site.requested if path != "/robots.txt")
    assert set(pages) == set(site.routes) - {"/robots.txt", "/debatabase/all?page=0"}
    assert set(pages.values()) == {1}, pages.most_common(3)


def test_a_request_in_flight_when_stop_comes_is_cut_short_and_fetched_again_by_the_resume(
    crawl_env: dict[str, str],
) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    # Every debate page: the first is still in flight at the bound, however late Stop is written.
    site.delay = 6 * STOP_SECONDS
    with site.serve():
        run, took = stopped_after(site, crawl_env, lambda: bool(debates_asked(site)))
        assert took < STOP_SECONDS, f"stopped {took:.1f} s after it was asked"
        assert count(crawl_env, "crawler_debate") == 0
        site.delay = 0.0
        resumed(site, crawl_env, run)
    # The one in flight (a site's requests go one at a time) was asked for again; nothing else was.
    pages = Counter(debates_asked(site))
    assert sorted(pages.values()) == [1] * 48 + [2], pages.most_common(3)


def debates_asked(site: LocalSite) -> list[str]:
    return [path for path in site.requested if path.startswith("/debatabase/theme/")]
