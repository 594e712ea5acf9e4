"""A failed pg_dump or pg_restore says how it ended and what it wrote on stderr, never a bare status."""

from __future__ import annotations

from pathlib import Path

import pytest

from backups.errors import PostgresToolError
from backups.postgres import POSTGRES_ENGINE, restore_database

DATABASE = {"ENGINE": POSTGRES_ENGINE, "NAME": "stancework"}


def tool_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, script: str) -> None:
    """A stand-in for a PostgreSQL tool that ends as a crashing or failing one does."""
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{path.parent}:/usr/bin:/bin")


def test_a_pg_restore_killed_by_a_signal_is_named_with_the_signal_and_its_stderr(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tool_on_path(monkeypatch, tmp_path, "pg_restore", 'echo "pg_restore: reading TOC" >&2; kill -SEGV $$')

    with pytest.raises(PostgresToolError) as failed:
        restore_database(DATABASE, tmp_path / "database.dump", replace=False)

    assert str(failed.value) == "pg_restore was killed by SIGSEGV (11): pg_restore: reading TOC"


def test_a_silent_failure_says_there_was_nothing_on_stderr(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tool_on_path(monkeypatch, tmp_path, "pg_restore", "exit 3")

    with pytest.raises(PostgresToolError, match=r"failed with exit status 3: \(nothing on stderr\)"):
        restore_database(DATABASE, tmp_path / "database.dump", replace=False)
