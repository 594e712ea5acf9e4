"""The suite on xdist workers (tests/parallel.py): each worker's own Redis database and scratch
databases, and the scheduling hints naming files that exist."""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings

from config.celery import app
from rigs.databases import scratch_name
from tests import parallel

REPO = Path(__file__).resolve().parents[2]
REQUESTS_THE_DEMO = re.compile(r"\bserved_demo: ServedDemo[,)]")  # a test or fixture asks for it


def test_a_worker_takes_the_redis_database_its_index_above_the_given_one() -> None:
    assert parallel.redis_url_for_worker("redis://127.0.0.1:6379/0", 0) == "redis://127.0.0.1:6379/0"
    assert parallel.redis_url_for_worker("redis://127.0.0.1:6379/6", 1) == "redis://127.0.0.1:6379/7"
    assert parallel.redis_url_for_worker("redis://:pw@redis:6379", 1) == "redis://:pw@redis:6379/1"
    with pytest.raises(pytest.UsageError, match="Redis database 16"):
        parallel.redis_url_for_worker("redis://127.0.0.1:6379/15", 1)


def test_a_worker_index_comes_from_the_worker_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    assert parallel.worker_index() == 3
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert parallel.worker_index() is None


def test_a_scratch_database_carries_the_worker_id(monkeypatch: pytest.MonkeyPatch) -> None:
    base = "postgres://postgres@127.0.0.1:5432/ci"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert scratch_name(base, "smoke") == "ci_smoke_gw1"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert scratch_name(base, "smoke") == "ci_smoke"


@pytest.mark.redis
def test_broker_results_cache_and_subprocesses_name_one_redis_database() -> None:
    url = os.environ["REDIS_URL"]
    # A worker's database is its own: the given one moved up by its index (gw0 and one process: not moved).
    assert url == parallel.redis_url_for_worker(parallel.GIVEN_REDIS_URL, parallel.worker_index() or 0)
    database = url.rsplit("/", 1)[1]
    assert settings.REDIS_URL == settings.CACHES["default"]["LOCATION"] == url
    with app.connection_for_write() as connection:
        assert connection.as_uri().endswith(f"/{database}")
    assert app.conf.result_backend == url


def test_the_scheduling_hints_name_test_files_that_exist() -> None:
    assert parallel.LONG_FILES and parallel.SERVED_DEMO_FILES
    for name in (*parallel.LONG_FILES, *parallel.SERVED_DEMO_FILES):
        assert (REPO / name).is_file(), name


def test_every_file_using_the_served_demo_goes_to_one_worker() -> None:
    users = {
        str(path.relative_to(REPO))
        for path in (REPO / "tests").rglob("test_*.py")
        if REQUESTS_THE_DEMO.search(path.read_text())
    }
    assert users == set(parallel.SERVED_DEMO_FILES)
    assert {parallel.scope_of(f"{name}::test") for name in users} == {"served-demo"}


def test_the_scheduler_of_make_test_hands_out_the_demos_files_as_one_unit_in_collection_order() -> None:
    """What `--dist loadfile` makes of the hook: xdist's own file scheduler, the demo's files one unit."""
    config = SimpleNamespace(
        getoption={"dist": "loadfile"}.__getitem__,
        getvalue={"tx": ["2*popen"]}.__getitem__,
        option=SimpleNamespace(loadscopereorder=True),
    )
    scheduler = parallel.pytest_xdist_make_scheduler(config, None)  # type: ignore[arg-type]
    units = {scheduler._split_scope(f"{name}::test") for name in parallel.SERVED_DEMO_FILES}
    assert units == {"served-demo"}
    other = "tests/crawler/test_resume_start.py"
    assert scheduler._split_scope(f"{other}::test") == other
    assert config.option.loadscopereorder is False  # the long files stay first


def test_the_skip_summary_comes_back_from_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers collect, the controller writes the summary: a worker's counts reach it whole."""
    from tests import conftest

    monkeypatch.setattr(conftest, "_service_tests", [4])
    monkeypatch.setattr(conftest, "_skipped_services", {"Redis tests need REDIS_URL": 3})
    worker = SimpleNamespace(config=SimpleNamespace(workeroutput={}))
    conftest.pytest_sessionfinish(worker)  # type: ignore[arg-type]
    monkeypatch.setattr(conftest, "_service_tests", [0])
    monkeypatch.setattr(conftest, "_skipped_services", {})
    conftest.pytest_testnodedown(SimpleNamespace(workeroutput=worker.config.workeroutput), None)
    lines: list[str] = []
    conftest.pytest_terminal_summary(SimpleNamespace(write_line=lines.append))  # type: ignore[arg-type]
    assert lines == ["service tests skipped: 3", "  3 skipped: Redis tests need REDIS_URL"]
