"""Suite-wide fixtures. Service tests (PostgreSQL, Redis) run only when DATABASE_URL/REDIS_URL name them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from tests.served_demo import copy_database, served_demo  # noqa: F401  (one `make run` per session)

# Each xdist worker's own Redis database, the scheduling of files across workers.
pytest_plugins = ("tests.parallel",)

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
PERSPECTRUM = SHARED / "perspectrum"

_skipped_services: dict[str, int] = {}
_service_tests: list[int] = [0]


def _needs(name: str, var: str, prefix: tuple[str, ...]) -> str | None:
    value = os.environ.get(var, "")
    if not value.startswith(prefix):
        return f"{name} tests need {var} pointing at {name} (unset: the suite runs on its embedded defaults)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        reasons = []
        if item.get_closest_marker("postgres"):
            reasons.append(_needs("PostgreSQL", "DATABASE_URL", ("postgres://", "postgresql://")))
        if item.get_closest_marker("redis"):
            reasons.append(_needs("Redis", "REDIS_URL", ("redis://", "rediss://")))
        if item.get_closest_marker("caddy") and not shutil.which("caddy"):
            reasons.append("Caddy tests need the caddy binary (apt-get install caddy; .ci/run installs it)")
        if any(item.get_closest_marker(name) for name in ("postgres", "redis", "caddy")):
            _service_tests[0] += 1
        reason = "; ".join(r for r in reasons if r)
        if reason:
            _skipped_services[reason] = _skipped_services.get(reason, 0) + 1
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: the counts go back to the controller, which collects nothing itself."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["service_tests"] = {"ran": _service_tests[0], "skipped": dict(_skipped_services)}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the xdist controller: a worker's counts. Every worker collects the whole suite, so any
    worker's are the suite's."""
    counts = getattr(node, "workeroutput", {}).get("service_tests")
    if counts:
        _service_tests[0] = counts["ran"]
        _skipped_services.clear()
        _skipped_services.update(counts["skipped"])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _skipped_services:
        terminalreporter.write_line(f"service tests: {_service_tests[0]} ran against real PostgreSQL/Redis")
        return
    total = sum(_skipped_services.values())
    terminalreporter.write_line(f"service tests skipped: {total}")
    for reason, count in sorted(_skipped_services.items()):
        terminalreporter.write_line(f"  {count} skipped: {reason}")


@pytest.fixture(autouse=True, scope="session")
def isolated_state_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Indexes, releases, crawl state and data go to a temporary directory, never the checkout's var/
    (subprocesses such as crawls inherit it through the environment)."""
    from django.conf import settings

    root = tmp_path_factory.mktemp("var")
    dirs = {
        "DATA_DIR": root / "data",
        "RELEASES_DIR": root / "releases",
        "SEARCH_INDEX_DIR": root / "search",
        "CRAWLER_DIR": root / "crawler",
    }
    saved = {name: getattr(settings, name) for name in [*dirs, "SEARCH_RANKING"]}
    # Candidates rank by BM25 unless a test chooses a ranking, whether or not the dense extra is installed.
    settings.SEARCH_RANKING = "bm25"
    saved_env = os.environ.get("STANCEWORK_VAR_DIR")
    os.environ["STANCEWORK_VAR_DIR"] = str(root)
    for name, path in dirs.items():
        setattr(settings, name, path)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(settings, name, value)
        if saved_env is None:
            os.environ.pop("STANCEWORK_VAR_DIR", None)
        else:
            os.environ["STANCEWORK_VAR_DIR"] = saved_env


# The suite's copies of sites listen on 127.0.0.1, each on a port the kernel picks: crawls may reach
# them, as a deployment's never do (tests/crawler/test_crawl_targets.py turns this off).
TEST_SITES = "http://127.0.0.1:*"


@pytest.fixture(autouse=True, scope="session")
def test_sites_on_loopback() -> Iterator[None]:
    from django.conf import settings

    saved, saved_env = settings.CRAWLER_EXTRA_ORIGINS, os.environ.get("CRAWLER_EXTRA_ORIGINS")
    settings.CRAWLER_EXTRA_ORIGINS, os.environ["CRAWLER_EXTRA_ORIGINS"] = [TEST_SITES], TEST_SITES
    try:
        yield
    finally:
        settings.CRAWLER_EXTRA_ORIGINS = saved
        if saved_env is None:
            os.environ.pop("CRAWLER_EXTRA_ORIGINS", None)
        else:
            os.environ["CRAWLER_EXTRA_ORIGINS"] = saved_env


@pytest.fixture(autouse=True, scope="session")
def eager_celery() -> Iterator[None]:
    """Tasks run in-process for the whole session (module fixtures included) even when REDIS_URL is
    set: tests about services want eager Celery. Tests marked `redis` are about delivery and switch
    back to the real broker and worker (see `broker_for_redis_tests`)."""
    from config.celery import app

    # With a CELERY settings namespace, the namespaced key is the one Celery reads back.
    saved = app.conf.CELERY_TASK_ALWAYS_EAGER
    app.conf.CELERY_TASK_ALWAYS_EAGER = True
    try:
        yield
    finally:
        app.conf.CELERY_TASK_ALWAYS_EAGER = saved


@pytest.fixture(autouse=True)
def broker_for_redis_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    from config.celery import app

    if not request.node.get_closest_marker("redis"):
        yield
        return
    app.conf.CELERY_TASK_ALWAYS_EAGER = False
    try:
        yield
    finally:
        app.conf.CELERY_TASK_ALWAYS_EAGER = True


def _perspectrum_dir() -> Path:
    if not (PERSPECTRUM / "perspectrum_with_answers_v1.0.json").exists():
        pytest.fail(f"the PERSPECTRUM release is expected at {PERSPECTRUM} (../shared beside the checkout)")
    return PERSPECTRUM


@pytest.fixture
def perspectrum_dir() -> Path:
    return _perspectrum_dir()


@pytest.fixture(scope="module")
def perspectrum_db(django_db_setup: None, django_db_blocker: Any) -> Iterator[Path]:
    """The full PERSPECTRUM release imported once for a whole test module, rolled back after it.

    Tests in the module still use `db` (each runs in a savepoint inside this transaction); do not
    mix in `transaction=True` tests, which would see or break the outer transaction.
    """
    from corpus.services import import_perspectrum

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            import_perspectrum(_perspectrum_dir())
            yield _perspectrum_dir()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file `manage.py migrate` brought up to date, once per session: copy it, never change it.
    For the processes (crawls, `make run`) a test runs on a database of their own."""
    path = tmp_path_factory.mktemp("migrated") / "template.sqlite3"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=REPO,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{path}"},
        check=True,
        timeout=600,
    )
    copy_database(path, path.with_name("migrated.sqlite3"))  # whole, WAL included, for file copies
    return path.with_name("migrated.sqlite3")
