"""Crash safety: a resumed JOBDIR only after a clean stop, dead runs settled without signalling a
stranger, and crawls killed at random points that always finish when run again."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from crawler.crawling import CLEAN_STOP, prepare_job_dir
from crawler.local_site import LocalSite
from tests.crawler.conftest import IDEBATE_PAGES, REPO
from tests.crawler.test_crawl_end_to_end import DEBATES, count, crawl_args, query

# Eight saved pages, each a debate, behind three listing pages.
CRASH_PAGES = 8
# Two random kills a cycle: 20 kills, each cycle ending with a rerun that must finish.
CYCLES = 10


def test_an_old_spider_state_without_a_clean_stop_marker_is_discarded(tmp_path: Path) -> None:
    jobdir = tmp_path / "idebate"
    jobdir.mkdir()
    (jobdir / "spider.state").write_bytes(b"left by a clean stop long ago")
    note, resumed_from = prepare_job_dir(jobdir, resume=True)
    assert resumed_from is None
    assert "did not stop cleanly" in note
    assert not jobdir.exists()


def test_a_clean_stop_is_resumed_once_and_recorded(tmp_path: Path) -> None:
    jobdir = tmp_path / "idebate"
    jobdir.mkdir()
    (jobdir / CLEAN_STOP).write_text(json.dumps({"run": 7}))
    note, resumed_from = prepare_job_dir(jobdir, resume=True)
    assert (resumed_from, jobdir.exists()) == (7, True)
    assert "run 7" in note
    # Resuming consumes the marker: if this crawl is killed, the next one starts over.
    assert not (jobdir / CLEAN_STOP).exists()
    assert prepare_job_dir(jobdir, resume=True)[1] is None


def test_no_resume_discards_even_a_clean_stop(tmp_path: Path) -> None:
    jobdir = tmp_path / "idebate"
    jobdir.mkdir()
    (jobdir / CLEAN_STOP).write_text(json.dumps({"run": 7}))
    assert prepare_job_dir(jobdir, resume=False) == ("previous crawl state discarded (asked)", None)


def test_crawls_killed_at_random_points_always_finish_when_run_again(
    crawl_env: dict[str, str],
    tmp_path: Path,
) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for path in sorted(IDEBATE_PAGES.glob("*.html"))[:CRASH_PAGES]:
        shutil.copy(path, pages / path.name)
    site = LocalSite.idebate(pages, per_listing=3)
    site.delay = 0.05
    env = {**crawl_env, "CRAWLER_PROGRESS_SECONDS": "1"}
    with site.serve():
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.crawler.crash_harness",
                f"{site.url}/debatabase/all",
                "15",
                str(CYCLES),
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    cycles = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(cycles) == CYCLES
    for result in cycles:
        assert result["rerun_ended"] and result["rerun_status"] == "finished", result
        assert result["active_runs"] == 0, result
        assert result["debates"] == CRASH_PAGES, result
        # Every page stored once: 8 debate pages, 3 listings, one version each.
        assert result["pages"] == result["distinct_pages"] == result["versions"] == CRASH_PAGES + 3, result
    signals = [name for result in cycles for name in result["signals"]]
    assert {"SIGTERM", "SIGKILL"} <= set(signals)


def test_a_crawl_stopped_with_sigterm_midway_resumes_its_queue_and_says_so(
    crawl_env: dict[str, str],
) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    site.delay = 0.2
    with site.serve():
        args = crawl_args(site)
        process = subprocess.Popen(
            args, cwd=REPO, env=crawl_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and count(crawl_env, "crawler_debate") < 5:
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)
        site.delay = 0.0
        done = subprocess.run(args, cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    runs = query(crawl_env, "SELECT id, status, resumed_from_id FROM crawler_crawlrun ORDER BY id")
    assert [(status, resumed) for _, status, resumed in runs] == [("stopped", None), ("finished", runs[0][0])]
    assert count(crawl_env, "crawler_debate") == DEBATES
    assert query(crawl_env, "SELECT COUNT(*), COUNT(DISTINCT canonical_url) FROM crawler_page")[0] == (51, 51)
