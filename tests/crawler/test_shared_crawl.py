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
from itertools import pairwise
from pathlib import Path

import pytest

from crawler.local_site import LocalSite
from tests.crawler.conftest import IDEBATE_PAGES, REPO
from tests.crawler.test_crawl_end_to_end import count, crawl_args, query

pytestmark = pytest.mark.redis
DELAY_MS = 60


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
    # Politeness across processes: requests to the site never closer than the delay.
    times = [t for path, t in zip(site.requested, site.arrived, strict=True) if path != "/robots.txt"]
    gaps = [b - a for a, b in pairwise(times)]
    paths = [p for p in site.requested if p != "/robots.txt"]
    close = [(paths[i], paths[i + 1], round(g, 4)) for i, g in enumerate(gaps) if g < DELAY_MS / 1000 * 0.9]
    assert close == []
