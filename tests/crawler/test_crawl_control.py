"""Crawls controlled through their run's row, as across containers: Stop from another pid namespace, a
killed crawl failed for its silent heartbeat, the demo's saved-pages crawl resuming (its `--limit`
counting the whole crawl), and connection failures ending a run "finished with errors".

Each crawl is `manage.py crawl` in its own process on a SQLite file of its own, as in
test_crawl_end_to_end; Stop and beat's sweep run in yet other processes, as the web and beat
containers would.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from crawler.local_site import LocalSite, preferred_port
from crawler.services import STOP_SECONDS
from rigs.processes import free_port
from tests.crawler.conftest import IDEBATE_PAGES, REPO
from tests.crawler.test_crawl_end_to_end import DEBATES, count, crawl_args, query

WAIT_SECONDS = 120


def in_another_pid_namespace() -> list[str]:
    """`unshare --pid --fork`: the crawl's pids mean nothing to this process, as across containers.
    Without the privilege, the crawl still runs in a session of its own, never signalled."""
    works = subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True, check=False)
    return ["unshare", "--pid", "--fork", "--kill-child"] if works.returncode == 0 else []


def manage_py(env: dict[str, str], code: str) -> str:
    """Run `code` in a Django shell of its own (another process: the web or beat container)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=WAIT_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]  # after the shell's note on its automatic imports


def wait_for(condition: Callable[[], bool], what: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert process.poll() is None, f"the crawl ended before: {what}"
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def running_run(env: dict[str, str]) -> int | None:
    rows = query(env, "SELECT id FROM crawler_crawlrun WHERE status = 'running' AND heartbeat IS NOT NULL")
    return rows[0][0] if rows else None


def status_of(env: dict[str, str], run: int | None) -> str:
    return str(query(env, f"SELECT status FROM crawler_crawlrun WHERE id = {run}")[0][0])


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*in_another_pid_namespace(), *args], cwd=REPO, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def test_stop_from_another_pid_namespace_stops_the_crawl_within_seconds_and_it_resumes(
    crawl_env: dict[str, str],
) -> None:
    site = LocalSite.idebate(IDEBATE_PAGES)
    site.delay = 0.2
    with site.serve():
        crawl = start(crawl_args(site), crawl_env)
        try:
            wait_for(lambda: count(crawl_env, "crawler_debate") >= 3, "three debates ingested", crawl)
            run = running_run(crawl_env)
            (pid,) = query(crawl_env, f"SELECT pid FROM crawler_crawlrun WHERE id = {run}")[0]
            if in_another_pid_namespace():
                assert pid == 1 != crawl.pid  # the pid the crawl sees is no pid here
            stop = f"from crawler import services; print(services.stop_crawl({run}))"
            assert manage_py(crawl_env, stop) == "True"  # from a process that cannot signal it
            asked = time.monotonic()
            wait_for(lambda: status_of(crawl_env, run) != "running", "the crawl stops", crawl)
            took = time.monotonic() - asked
            crawl.wait(timeout=WAIT_SECONDS)
        finally:
            if crawl.poll() is None:
                os.killpg(crawl.pid, signal.SIGKILL)
                crawl.wait()
        assert took < STOP_SECONDS and crawl.returncode == 0
        (status, message) = query(
            crawl_env, f"SELECT status, message FROM crawler_crawlrun WHERE id = {run}"
        )[0]
        assert status == "stopped" and "resumes it" in message
        assert count(crawl_env, "crawler_debate") < DEBATES

        site.delay = 0.0
        done = subprocess.run(
            crawl_args(site), cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=300
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert query(crawl_env, "SELECT status, resumed_from_id FROM crawler_crawlrun ORDER BY id")[1] == (
        "finished",
        run,
    )
    assert count(crawl_env, "crawler_debate") == DEBATES


def test_a_killed_crawl_is_failed_by_beats_sweep_once_its_heartbeat_is_older_than_the_limit(
    crawl_env: dict[str, str],
) -> None:
    env = {**crawl_env, "CRAWLER_HEARTBEAT_LIMIT_SECONDS": "3"}
    site = LocalSite.idebate(IDEBATE_PAGES)
    site.delay = 0.2
    with site.serve():
        crawl = start(crawl_args(site), env)
        try:
            wait_for(lambda: running_run(env) is not None, "the crawl runs", crawl)
            run = running_run(env)
            # As its container is killed: no handler runs, nothing is written.
            os.killpg(crawl.pid, signal.SIGKILL)
            crawl.wait(timeout=WAIT_SECONDS)
        finally:
            if crawl.poll() is None:
                os.killpg(crawl.pid, signal.SIGKILL)
                crawl.wait()
    sweep = "from crawler.tasks import fail_silent_runs; print(fail_silent_runs())"
    assert manage_py(env, sweep) in ("[]", f"[{run}]")  # within the limit it may still be alive
    time.sleep(4)
    assert manage_py(env, sweep) in ("[]", f"[{run}]")
    (status, message) = query(env, f"SELECT status, message FROM crawler_crawlrun WHERE id = {run}")[0]
    assert status == "failed"
    assert (
        message.startswith("no heartbeat for ") and "(the limit is 3 s): its crawl process is gone" in message
    )


def saved_pages_crawl(tmp_path: Path, *extra: str) -> tuple[Path, list[str]]:
    """The demo's crawl of the saved pages, in a folder of this test's own: the port a folder's crawl
    prefers is then not the one every other crawl of the shared pages on this machine wants at the
    same moment (the served demo on another xdist worker, another checkout's suite)."""
    pages = shutil.copytree(IDEBATE_PAGES, tmp_path / "pages")
    return pages, [sys.executable, "manage.py", "crawl", "idebate", "--serve-saved-pages", str(pages), *extra]


def stopped_midway(args: list[str], env: dict[str, str]) -> int:
    """Start the crawl slowly, stop it once three debates are in; the stopped run's id. A second
    between pages leaves the stop (a manage.py process of its own) many seconds to arrive before a
    limited crawl could end by itself, however loaded the machine."""
    slow = {**env, "CRAWLER_DOWNLOAD_DELAY_MS": "1000"}
    crawl = start(args, slow)
    try:
        wait_for(lambda: count(slow, "crawler_debate") >= 3, "three debates ingested", crawl)
        run = running_run(slow)
        manage_py(slow, f"from crawler import services; services.stop_crawl({run})")
        crawl.wait(timeout=WAIT_SECONDS)
    finally:
        if crawl.poll() is None:
            os.killpg(crawl.pid, signal.SIGKILL)
            crawl.wait()
    assert run is not None
    return run


def assert_resumed_without_refetching(
    env: dict[str, str], run: int, done: subprocess.CompletedProcess
) -> None:
    """The second run continued the stopped one, and fetched nothing the stopped one had fetched."""
    assert done.returncode == 0, done.stderr[-3000:]
    runs = query(env, "SELECT status, resumed_from_id FROM crawler_crawlrun ORDER BY id")
    assert runs == [("stopped", None), ("finished", run)], done.stdout[-3000:]
    assert "resuming from" in done.stdout
    refetched = query(
        env,
        "SELECT p.canonical_url FROM crawler_pageversion v JOIN crawler_page p ON p.id = v.page_id"
        f" WHERE v.first_run_id = {run} AND v.last_run_id != {run}",
    )
    assert refetched == [], done.stdout[-3000:]


def test_the_demos_saved_pages_crawl_resumes_and_its_limit_counts_the_whole_crawl(
    crawl_env: dict[str, str], tmp_path: Path
) -> None:
    _, args = saved_pages_crawl(tmp_path, "--limit", "20")
    run = stopped_midway(args, crawl_env)
    first = count(crawl_env, "crawler_debate")

    done = subprocess.run(args, cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=300)

    assert_resumed_without_refetching(crawl_env, run, done)
    runs = query(crawl_env, "SELECT items, errors FROM crawler_crawlrun ORDER BY id")
    assert runs[1] == (20 - first, 0)  # no dead port in its saved queue
    assert count(crawl_env, "corpus_claim") == 20
    # Nothing fetched before the stop (listings included) was fetched again.
    fetched_before = f"SELECT COUNT(*) FROM crawler_pageversion WHERE first_run_id = {run}"
    assert query(crawl_env, fetched_before)[0][0] >= first + 1


def test_the_saved_pages_crawl_resumes_when_its_port_is_taken_meanwhile(
    crawl_env: dict[str, str], tmp_path: Path
) -> None:
    pages, args = saved_pages_crawl(tmp_path)
    run = stopped_midway(args, crawl_env)

    with socket.socket() as taken:
        # Another program now listens on the port the stopped crawl's URLs name.
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", preferred_port(pages)))
        taken.listen()
        done = subprocess.run(args, cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=300)

    assert_resumed_without_refetching(crawl_env, run, done)
    assert count(crawl_env, "crawler_debate") == DEBATES
    # Every page once, under the address the crawl started with: 48 debates (one saved twice), 3 listings.
    pages_stored = query(crawl_env, "SELECT COUNT(*), COUNT(DISTINCT canonical_url) FROM crawler_page")[0]
    assert pages_stored == (51, 51), done.stdout[-3000:]
    (errors,) = query(crawl_env, f"SELECT errors FROM crawler_crawlrun WHERE resumed_from_id = {run}")[0]
    assert errors == 0


def test_a_crawl_whose_requests_cannot_connect_ends_finished_with_errors_and_says_how_many(
    crawl_env: dict[str, str],
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    args = [sys.executable, "manage.py", "crawl", "idebate", "--start-url", f"{dead}/debatabase/all"]

    done = subprocess.run(args, cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=300)

    assert done.returncode == 0, done.stderr[-3000:]
    (status, message) = query(crawl_env, "SELECT status, message FROM crawler_crawlrun")[0]
    assert status == "finished_with_errors"
    assert message.endswith("1 requests failed for good (1 ConnectionRefusedError)")
    assert "finished with errors" in done.stdout and "ConnectionRefusedError" in done.stdout
