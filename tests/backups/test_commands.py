"""`backup` and `restore` turn bad input into a clear message, before touching anything."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from backups.layout import DATABASE_DUMP, RELEASES_ARCHIVE, write_manifest


def a_backup(tmp_path: Path) -> Path:
    directory = tmp_path / "stancework-20260301T020000Z"
    directory.mkdir()
    (directory / DATABASE_DUMP).write_bytes(b"PGDMP")
    (directory / RELEASES_ARCHIVE).write_bytes(b"")
    write_manifest(directory, datetime(2026, 3, 1, 2, tzinfo=UTC), database="stancework")
    return directory


def test_restore_names_a_missing_backup(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a directory"):
        call_command("restore", str(tmp_path / "nowhere"))


def test_restore_refuses_a_database_that_is_not_postgresql(tmp_path: Path) -> None:
    target = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with pytest.raises(CommandError, match="backups need PostgreSQL"):
        call_command("restore", str(a_backup(tmp_path)), "--database-url", target)
    assert not (tmp_path / "db.sqlite3").exists()


def test_restore_names_an_unreadable_database_url(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--database-url"):
        call_command("restore", str(a_backup(tmp_path)), "--database-url", "nosuchscheme://x/y")


def test_backup_refuses_to_keep_no_copies(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--keep"):
        call_command("backup", "--dir", str(tmp_path), "--keep", "0")
    assert list(tmp_path.iterdir()) == []
