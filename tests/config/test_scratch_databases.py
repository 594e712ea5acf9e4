"""The scratch databases of tests and benchmarks (rigs/databases.py): made anew empty, and dropped
after use."""

from __future__ import annotations

import psycopg
import pytest

from rigs.databases import (
    configured_url,
    recreate_database,
    scratch_database,
    scratch_name,
    with_database,
)

pytestmark = pytest.mark.postgres


def exists(url: str, name: str) -> bool:
    with psycopg.connect(with_database(url, "postgres")) as server:
        return server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def test_a_recreated_database_is_empty_and_a_scratch_one_is_dropped_after_use() -> None:
    with scratch_database("rig") as url:
        with psycopg.connect(url) as database:
            database.execute("CREATE TABLE left_behind (n int)")
            database.commit()

        recreate_database(url)  # as `bench labels --reseed` starts its database anew

        with psycopg.connect(url) as database:
            assert database.execute("SELECT to_regclass('left_behind')").fetchone() == (None,)
    assert not exists(configured_url(), scratch_name(configured_url(), "rig"))
