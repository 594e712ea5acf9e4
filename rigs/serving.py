"""The app served for a benchmark or a test, as in production but on loopback: PostgreSQL and Redis found
(`service_urls`, `unreachable`), the app's environment, and gunicorn with a Celery worker over a
migrated scratch database (`served_stack`), this checkout's code or another's. Used by the load, fault,
scale, workers and labels benchmarks and by tests/annotation/test_load.py.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
import requests
from django.conf import settings

from config.celery import worker_command
from rigs.databases import scratch_database, with_database
from rigs.processes import ProcessGroup, free_port

PYTHON = sys.executable


def service_urls(redis_db: int = 14) -> tuple[str, str]:
    """PostgreSQL and Redis for a benchmark; Redis database `redis_db` (unless LOAD_REDIS_URL names
    one), so no other test's or benchmark's queued task reaches its workers."""
    database = os.environ.get("LOAD_DATABASE_URL") or os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        database = "postgres://postgres@127.0.0.1:5432/stancework"
    if own := os.environ.get("LOAD_REDIS_URL"):  # as given, database number included
        return database, own
    broker = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    return database, urlunsplit(urlsplit(broker)._replace(path=f"/{redis_db}"))


def app_environment(tmp: Path, database_url: str, redis_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "WORKER_PSEUDONYM_KEY": secrets.token_hex(32),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STANCEWORK_VAR_DIR": str(tmp / "var"),
        "STATIC_ROOT": str(tmp),  # the crowd fetches no static files
        "SEARCH_SYNC": "false",
        "LOG_LEVEL": "WARNING",
    }


@contextmanager
def served_stack(
    tmp: Path, database_url: str, redis_url: str, code: Path | None = None
) -> Iterator[tuple[ProcessGroup, dict[str, str], str]]:
    """gunicorn (4 workers of 4 threads, config/gunicorn.conf.py) and a Celery worker over a migrated
    scratch database: (group, env, base URL). `code`: another checkout to serve (its own migrations,
    settings, seeding and check) instead of this one; without config/gunicorn.conf.py it is served by
    4 sync workers, as it was then."""
    code = code or Path(settings.BASE_DIR)
    config = ["--config", "config/gunicorn.conf.py"] if (code / "config/gunicorn.conf.py").exists() else []
    group = ProcessGroup(tmp, code)
    with scratch_database("load", database_url) as scratch:
        env = app_environment(tmp, scratch, redis_url)
        group.run("migrate", [PYTHON, "manage.py", "migrate", "--noinput", "-v0"], env, timeout=300)
        port = free_port()
        try:
            # A command line laid out by hand: each flag beside its value.
            group.start(
                "gunicorn",
                [PYTHON, "-m", "gunicorn", "config.wsgi:application", *config, "--bind", f"127.0.0.1:{port}",
                 "--workers", "4", "--timeout", "60", "--backlog", "2048"],
                env,
            )  # fmt: skip
            group.start(
                "celery",
                worker_command(
                    "--concurrency", "1", "--without-mingle", "--without-gossip", "--loglevel", "WARNING"
                ),
                env,
            )
            base = f"http://127.0.0.1:{port}"
            group.wait_until(lambda: _answers(f"{base}/healthz"), "gunicorn", timeout=60)
            yield group, env, base
        finally:
            group.stop()


def _answers(url: str) -> bool:
    with requests.Session() as session:
        session.trust_env = False  # loopback only: no proxy from the environment
        try:
            return session.get(url, timeout=5, headers={"X-Forwarded-Proto": "https"}).status_code < 500
        except requests.RequestException:
            return False


def unreachable(database_url: str, redis_url: str) -> str:
    """Why PostgreSQL or Redis cannot be used; "" when both answer."""
    try:
        psycopg.connect(with_database(database_url, "postgres"), connect_timeout=3).close()
        redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping()
    except (psycopg.Error, redis.RedisError) as error:
        return str(error)
    return ""


def last_json(output: str) -> dict:  # type: ignore[type-arg]
    return dict(json.loads(output.strip().splitlines()[-1]))
