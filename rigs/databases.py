"""Scratch PostgreSQL databases beside the one DATABASE_URL names, created and dropped by a test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql


def configured_url() -> str:
    return os.environ["DATABASE_URL"]


def with_database(url: str, name: str) -> str:
    """The same server and credentials, another database."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def database_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def _maintenance(url: str) -> psycopg.Connection:
    # libpq takes both postgres:// and postgresql:// URLs; "postgres" is the maintenance database.
    return psycopg.connect(with_database(url, "postgres"), autocommit=True)


def drop_database(url: str) -> None:
    """Drop the database ``url`` names, if it exists, whoever is connected to it."""
    with _maintenance(url) as server:
        server.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database_of(url)))
        )


def recreate_database(url: str) -> None:
    """The database ``url`` names, dropped if it exists and created empty."""
    drop_database(url)
    with _maintenance(url) as server:
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database_of(url))))


def scratch_name(base: str, suffix: str) -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return f"{database_of(base)}_{suffix}" + (f"_{worker}" if worker else "")


@contextmanager
def scratch_database(suffix: str, base: str = "") -> Iterator[str]:
    """A new empty database `<name>_<suffix>` beside `base` (default: the configured one; a stale one
    is dropped first); its URL. In a pytest-xdist worker the name ends with the worker's id
    (`<name>_<suffix>_gw1`), so tests running side by side never create or drop each other's."""
    base = base or configured_url()
    url = with_database(base, scratch_name(base, suffix))
    recreate_database(url)
    try:
        yield url
    finally:
        drop_database(url)
