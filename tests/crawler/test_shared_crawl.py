"""Crawling across processes (scrapy-redis): two crawl processes share one site's queue on Redis.
Their pages together are one process's crawl, no page is fetched twice, and the site's politeness
delay holds across both."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from crawler.local_site import LocalSite
from tests.crawler.conftest import IDEBATE_PAGES, REPO
from tests.crawler.test_crawl_end_to_end import count, crawl_args, query

pytestmark = pytest.mark.redis
DELAY_MS = 100  # the slack below is one delay: long enough for a loaded machine's lateness


def test_two_processes_share_one_crawl_without_fetching_a_page_twice(
    crawl_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**crawl_env, "REDIS_URL": os.environ["REDIS_URL"], "CRAWLER_DOWNLOAD_DELAY_MS": str(DELAY_MS)}
    # One process's crawl of the same site, on a copy of the same empty database, to compare with.
    alone = {
        **env,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'alone.sqlite3'}",
        "CRAWLER_DIR": str(tmp_path / "alone"),
    }
    shutil.copy(env["DATABASE_URL"].removeprefix("sqlite:///"), tmp_path / "alone.sqlite3")
    single = LocalSite.idebate(IDEBATE_PAGES)
    with single.serve():
        subprocess.run(crawl_args(single), cwd=REPO, env=alone, check=True, capture_output=True, timeout=240)
    site = LocalSite.idebate(IDEBATE_PAGES)
    site.delay = 0.05  # each debate page takes a moment, so the helper joins while there is work
    logs = [open(tmp_path / f"{name}.log", "w") for name in ("lead", "helper")]  # noqa: SIM115
    with site.serve():
        lead = subprocess.Popen(
            crawl_args(site, "--shared"), cwd=REPO, env=env, stdout=logs[0], stderr=logs[0]
        )
        deadline = time.monotonic() + 60
        while not query(env, "SELECT id FROM crawler_crawlrun WHERE status = 'running'"):
            assert time.monotonic() < deadline and lead.poll() is None, (tmp_path / "lead.log").read_text()[
                -3000:
            ]
            time.sleep(0.2)
        join = [sys.executable, "manage.py", "crawl", "idebate", "--join"]
        helper = subprocess.Popen(join, cwd=REPO, env=env, stdout=logs[1], stderr=logs[1])
        assert helper.wait(timeout=240) == 0, (tmp_path / "helper.log").read_text()[-3000:]
        assert lead.wait(timeout=240) == 0, (tmp_path / "lead.log").read_text()[-3000:]
    for log in logs:
        log.close()

    fetched = [path for path in site.requested if path != "/robots.txt"]  # each process reads robots.txt
    assert [path for path, times in Counter(fetched).items() if times > 1] == []
    # Together, the pages of one process's crawl: the same requests, the same pages stored.
    assert set(fetched) == {path for path in single.requested if path != "/robots.txt"}
    stored = "SELECT canonical_url FROM crawler_page ORDER BY canonical_url"
    assert count(env, "crawler_page") == count(alone, "crawler_page") > 40
    assert [u.replace(site.url, "") for (u,) in query(env, stored)] == [
        u.replace(single.url, "") for (u,) in query(alone, stored)
    ]
    ((run_id, status, pages),) = query(env, "SELECT id, status, pages FROM crawler_crawlrun")
    helped = query(
        env, f"SELECT pages, finished IS NOT NULL FROM crawler_crawlhelper WHERE run_id = {run_id}"
    )
    assert status == "finished" and len(helped) == 1 and helped[0][1] == 1
    assert helped[0][0] > 0, "the helper fetched nothing: the crawl was not shared"
    # The run counts both processes' responses: the pages, and robots.txt once each (from the site
    # or from the HTTP cache they share).
    assert pages == len(fetched) + 2
    # Politeness across processes: the site saw no more than one request per delay, over any run of them.
    times = sorted(t for path, t in zip(site.requested, site.arrived, strict=True) if path != "/robots.txt")
    assert faster_than_the_delay(times, DELAY_MS / 1000) == []


def faster_than_the_delay(arrived: list[float], delay: float) -> list[tuple[int, int, float]]:
    """Every run of requests i..j (by their arrival times at the site) that took less than
    (j - i) delays, less one delay of slack: as (i, j, seconds it took).

    The slot times a request from when it reached the downloader, and the site notes it when its
    handler thread runs; under load either may come late, by up to about a delay. Such lateness moves
    only a run's two ends, never adds up along it, so one delay of slack is enough whatever the run's
    length, while requests sent without the shared slot (two processes, a few requests each at
    once) come many to the delay and fail here."""
    return [
        (i, j, round(arrived[j] - arrived[i], 4))
        for i, j in combinations(range(len(arrived)), 2)
        if arrived[j] - arrived[i] < (j - i - 1) * delay
    ]


def test_the_politeness_check_finds_requests_sent_together_and_forgives_one_late_request() -> None:
    paced = [0.1 * n for n in range(20)]
    one_late = [*paced[:5], paced[5] + 0.09, *paced[6:]]  # 90 ms late: its gap to the next is 10 ms
    assert faster_than_the_delay(paced, 0.1) == faster_than_the_delay(one_late, 0.1) == []
    together = [*paced[:10], *(paced[10] + 0.001 * n for n in range(3)), *paced[11:]]  # 3 at once
    assert (10, 12, 0.002) in faster_than_the_delay(together, 0.1)
