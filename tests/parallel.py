"""The suite on several pytest-xdist workers (`make test` runs two; `make test PYTEST_WORKERS=0` runs
it in one process). A plugin of the top conftest (`pytest_plugins`). What each worker keeps to itself:

- PostgreSQL: pytest-django gives each worker its own test database (`test_<name>_gw0`, ...); the
  scratch databases tests create beside it carry the worker's id too (rigs/databases.py).
- Redis: each worker its own database, REDIS_URL's number plus the worker's index (`redis://…/0`
  gives gw0 database 0 and gw1 database 1), so the page cache, Celery's queues and results, shared
  crawls' queues and the crawler's politeness slots, all under fixed keys, are never shared.
- Temporary directories (indexes, releases, crawl state): pytest's basetemp is per worker.
- Loopback ports: every server a test starts binds port 0 or a port the kernel picked (free_port).

Work is handed out a test file at a time (`--dist loadfile`: a module's fixtures are set up once),
except that the files sharing the session's served demo (`make run`, tests/served_demo.py) go to one
worker together, and the files that take minutes are handed out first, so no worker is left with a
long file at the end while the other idles.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16  # redis-server's default `databases`
GIVEN_REDIS_URL = os.environ.get("REDIS_URL", "")  # before a worker moves to its own database
# The files that take the longest (`--durations`, serial, a loaded machine: the served demo's three
# files ~200 s together, the load check ~90 s, the lab's project and the API schema ~55 s each): started
# first, longest first. A hint only: a file missing from here is merely scheduled in its turn.
LONG_FILES = (
    "tests/home/test_tutorial_browser.py",
    "tests/home/test_walk_browser.py",
    "tests/annotation/test_load.py",
    "tests/pipeline/test_lab_project.py",
    "tests/pipeline/test_killed_worker.py",
    "tests/api/test_schema.py",
    "tests/deploy/test_production_smoke.py",
    "tests/crawler/test_crash_safety.py",
    "tests/deploy/test_backup_restore.py",
    "tests/crawler/test_crawl_control.py",
    "tests/security/test_money_faults.py",
    "tests/crawler/test_crawl_end_to_end.py",
    "tests/annotation/test_market_contract.py",
    "tests/crawler/test_shared_crawl.py",
    "tests/aggregation/test_done_when.py",
)
# The files whose tests use the `served_demo` session fixture: one `make run` for all of them.
SERVED_DEMO_FILES = (
    "tests/home/test_walk_browser.py",
    "tests/home/test_readme_curl.py",
    "tests/pipeline/test_demo.py",
    "tests/home/test_tutorial_browser.py",
)


def worker_index() -> int | None:
    """This xdist worker's index (gw3: 3); None outside a worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker.removeprefix("gw")) if worker.startswith("gw") else None


def redis_url_for_worker(url: str, index: int) -> str:
    """The same Redis server, database number `index` above the URL's."""
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0) + index
    if database >= REDIS_DATABASES:
        raise pytest.UsageError(
            f"xdist worker {index} would need Redis database {database}: give REDIS_URL a lower one"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def _own_redis_database() -> None:
    """Django has read the settings by the time a conftest loads (pytest-django sets it up first), but
    nothing has connected to Redis yet: the settings that name it, and the environment the test's
    subprocesses inherit, change before anything does. Celery and the cache read them on first use."""
    index = worker_index()
    url = GIVEN_REDIS_URL
    if index is None or not url.startswith(("redis://", "rediss://")):
        return
    from django.conf import settings

    from config.celery import app

    own = redis_url_for_worker(url, index)
    if app.configured or settings.CACHES["default"].get("LOCATION") != url:
        raise pytest.UsageError("Celery or the cache was set up before the worker chose its Redis database")
    os.environ["REDIS_URL"] = settings.REDIS_URL = own
    settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = own
    settings.CACHES["default"]["LOCATION"] = own


_own_redis_database()  # on import, before any test or fixture runs


def scope_of(nodeid: str) -> str:
    """The unit of work of a test: its file, or the served demo's files together."""
    path = nodeid.split("::", 1)[0]
    return "served-demo" if path in SERVED_DEMO_FILES else path


def _rank(path: str) -> int:
    scope = scope_of(path)
    firsts = [scope_of(name) for name in LONG_FILES]
    return firsts.index(scope) if scope in firsts else len(firsts)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a worker: the long files first, the rest in collection order (a stable sort), so the
    controller hands out the long units first (`--dist loadfile` keeps the collection's order)."""
    if worker_index() is not None:
        items.sort(key=lambda item: _rank(item.nodeid.split("::", 1)[0]))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`, with the served demo's files as one unit and the collection's order kept."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class DemoTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    config.option.loadscopereorder = False
    return DemoTogether(config, log)
