"""End-to-end: `manage.py crawl` in its own process against the fixtures served from 127.0.0.1.

The crawl runs as a subprocess (as it does in production) on a SQLite file of its own; the test
reads the results back with sqlite3.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from crawler.local_site import LocalSite
from crawler.parsing import BadPageError, parse_debate
from tests.crawler.conftest import BUILT, IDEBATE_PAGES, REPO

# 49 pages: 7 have no points, and two are the same debate (node 2148) saved under two themes.
DEBATES = 41


def points_on_fixture_pages() -> int:
    """Points of the distinct debates among the fixture pages, as the parser sees them."""
    by_url: dict[str, int] = {}
    for path in IDEBATE_PAGES.glob("*.html"):
        try:
            record = parse_debate("idebate", path.read_bytes(), "x")
        except BadPageError:
            continue
        by_url[record.url] = len(record.points)
    return sum(by_url.values())


def crawl_args(site: LocalSite, *extra: str) -> list[str]:
    return [
        sys.executable,
        "manage.py",
        "crawl",
        "idebate",
        "--start-url",
        f"{site.url}/debatabase/all",
        *extra,
    ]


def query(env: dict[str, str], sql: str) -> list[tuple]:
    with sqlite3.connect(env["DATABASE_URL"].removeprefix("sqlite:///")) as db:
        return db.execute(sql).fetchall()


def count(env: dict[str, str], table: str) -> int:
    return query(env, f"SELECT COUNT(*) FROM {table}")[0][0]


def test_a_local_crawl_fills_the_corpus(crawl_env: dict[str, str]) -> None:
    bad = {
        "/debatabase/theme/members-only": (BUILT / "bad" / "login-wall.html").read_bytes(),
        "/debatabase/theme/truncated": (IDEBATE_PAGES.glob("*.html").__next__()).read_bytes()[:20000],
    }
    site = LocalSite.idebate(IDEBATE_PAGES, extra=bad)
    with site.serve():
        done = subprocess.run(
            crawl_args(site), cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=180
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert count(crawl_env, "crawler_debate") == DEBATES
    assert count(crawl_env, "corpus_claim") == DEBATES
    assert query(crawl_env, "SELECT DISTINCT source FROM corpus_claim") == [("idebate",)]
    points = count(crawl_env, "crawler_point")
    assert points == points_on_fixture_pages()
    assert count(crawl_env, "corpus_perspectivecluster") == points
    assert query(crawl_env, "SELECT DISTINCT status FROM corpus_perspectivecluster") == [("candidate",)]
    # 48 canonical debate URLs (one with two versions) + 2 bad pages + 3 listings (all, ?page=1, ?page=2).
    assert count(crawl_env, "crawler_page") == 53
    assert count(crawl_env, "crawler_pageversion") == 54
    # The command's progress, one line on a pipe: every response the crawl received, counted live.
    fetched = re.search(r"^crawl idebate \(run \d+\): (\d+) pages in [\d.]+ s$", done.stderr, re.M)
    assert fetched is not None, done.stderr[-3000:]
    assert int(fetched.group(1)) >= 54
    drops = dict(query(crawl_env, "SELECT reason, COUNT(*) FROM crawler_drop GROUP BY reason"))
    assert drops == {"no_points": 7, "login_wall": 1, "truncated_html": 1, "duplicate_in_run": 1}
    status, pages, items, dropped = query(
        crawl_env, "SELECT status, pages, items, drops FROM crawler_crawlrun"
    )[0]
    assert (status, items, dropped) == ("finished", DEBATES, 10)
    assert pages >= 54
    # Never a vote, a login page or a robots.txt-disallowed page.
    assert not [p for p in site.requested if "rate=" in p or "/user/login" in p or p.startswith("/private/")]


def test_crawling_again_adds_no_duplicates(crawl_env: dict[str, str]) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    with site.serve():
        for _ in range(2):
            done = subprocess.run(
                crawl_args(site), cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=180
            )
            assert done.returncode == 0, done.stderr[-3000:]
    assert count(crawl_env, "crawler_debate") == DEBATES
    assert count(crawl_env, "corpus_claim") == DEBATES
    assert count(crawl_env, "crawler_pageversion") == 52
    second = query(crawl_env, "SELECT stats FROM crawler_crawlrun ORDER BY id DESC LIMIT 1")[0][0]
    assert '"stancework/unchanged": 41' in second and "stancework/drop/unchanged" not in second
    assert "idebate (saved pages)" in done.stdout and ", unchanged 41, " in done.stdout


def test_a_crawl_killed_midway_and_run_again_finishes_without_duplicates(crawl_env: dict[str, str]) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    site.delay = 0.1
    with site.serve():
        process = subprocess.Popen(
            crawl_args(site), cwd=REPO, env=crawl_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and count(crawl_env, "crawler_debate") < 10:
            time.sleep(0.1)
        process.send_signal(signal.SIGKILL)
        process.wait()
        killed_at = count(crawl_env, "crawler_debate")
        assert 10 <= killed_at < DEBATES
        site.delay = 0.0
        done = subprocess.run(
            crawl_args(site), cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=180
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert count(crawl_env, "crawler_debate") == DEBATES
    assert count(crawl_env, "corpus_claim") == DEBATES
    pages = query(crawl_env, "SELECT COUNT(*), COUNT(DISTINCT canonical_url) FROM crawler_page")[0]
    assert pages == (51, 51), done.stderr[-3000:]
    assert count(crawl_env, "crawler_pageversion") == 52
    assert query(crawl_env, "SELECT COUNT(*) - COUNT(DISTINCT text) FROM corpus_claim")[0][0] == 0


def test_an_archive_crawl_reads_snapshots_listed_by_the_cdx_api(crawl_env: dict[str, str]) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    for path in IDEBATE_PAGES.glob("*.html"):
        record_url = canonical(path)
        site.archive[record_url] = path.read_bytes()
    # A vote link the archive happened to capture: listed by the CDX, never requested.
    site.archive["https://idebate.org/debatabase/health/house-would-ban-junk-food?rate=AbC"] = (
        b"<html></html>"
    )
    with site.serve():
        env = {**crawl_env, "CRAWLER_WAYBACK_URL": site.url}
        args = [sys.executable, "manage.py", "crawl", "idebate", "--archive", "2012:2019"]
        done = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    # Both CDX pages were read (the second through the resume key), so every debate is there.
    assert any("resumeKey=next-page-key" in p for p in site.requested)
    assert count(crawl_env, "crawler_debate") == DEBATES
    rows = query(crawl_env, "SELECT fetched_url, archive_timestamp FROM crawler_pageversion")
    assert rows and all(
        url.startswith(f"{site.url}/web/20160311120000id_/https://idebate.org/") for url, _ in rows
    )
    assert {ts for _, ts in rows} == {"20160311120000"}
    # Debates keep the page's own URL, not the archive's.
    assert all(
        url.startswith("https://idebate.org/")
        for (url,) in query(crawl_env, "SELECT url FROM crawler_debate")
    )
    assert query(crawl_env, "SELECT mode, status FROM crawler_crawlrun")[0] == ("archive", "finished")
    assert not [p for p in site.requested if "rate=" in p]


def test_limit_stops_after_that_many_debates(crawl_env: dict[str, str]) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    with site.serve():
        done = subprocess.run(
            crawl_args(site, "--limit", "5"),
            cwd=REPO,
            env=crawl_env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert count(crawl_env, "corpus_claim") == 5
    assert query(crawl_env, "SELECT items, status FROM crawler_crawlrun")[0] == (5, "finished")


def canonical(path: Path) -> str:
    from crawler.parsing.html import canonical_url, load_html

    return canonical_url(load_html(path.read_bytes()), "")
