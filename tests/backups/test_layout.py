"""Backup directories: complete only once renamed, checked against their checksums, pruned to N."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from backups.errors import BackupCorruptError, BackupError
from backups.layout import (
    DATABASE_DUMP,
    RELEASES_ARCHIVE,
    backup_lock,
    backup_name,
    check_backup,
    complete_backups,
    prune_backups,
    write_manifest,
)

START = datetime(2026, 3, 1, 2, 0, tzinfo=UTC)


def make_backup(root: Path, when: datetime, *, suffix: str = "") -> Path:
    directory = root / (backup_name(when) + suffix)
    directory.mkdir(parents=True)
    (directory / DATABASE_DUMP).write_bytes(b"PGDMP" + when.isoformat().encode())
    (directory / RELEASES_ARCHIVE).write_bytes(b"archive")
    write_manifest(directory, when, database="stancework")
    return directory


def test_names_sort_by_time_in_utc() -> None:
    assert backup_name(START) == "stancework-20260301T020000Z"
    later = START.astimezone(ZoneInfo("America/New_York")) + timedelta(seconds=1)
    assert backup_name(later) > backup_name(START)


def test_pruning_keeps_the_newest_complete_backups_removes_stale_partials_and_ignores_the_rest(
    tmp_path: Path,
) -> None:
    made = [make_backup(tmp_path, START + timedelta(days=day)) for day in range(5)]
    partial = make_backup(tmp_path, START - timedelta(days=1), suffix=".partial")
    (tmp_path / "notes").mkdir()

    with backup_lock(tmp_path):
        removed = prune_backups(tmp_path, keep=2)

    assert removed == [partial, *made[:3]]
    assert complete_backups(tmp_path) == made[3:]
    assert not partial.exists() and (tmp_path / "notes").is_dir()


def test_one_backup_or_prune_holds_the_root_at_a_time_and_the_root_is_private(tmp_path: Path) -> None:
    root = tmp_path / "backups"
    with backup_lock(root), pytest.raises(BackupError, match="another backup or prune"), backup_lock(root):
        pass
    with backup_lock(root):  # released
        pass
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE((root / ".backup.lock").stat().st_mode) == 0o600


def test_pruning_refuses_to_keep_nothing(tmp_path: Path) -> None:
    make_backup(tmp_path, START)
    with pytest.raises(ValueError, match="at least 1"):
        prune_backups(tmp_path, keep=0)
    assert len(complete_backups(tmp_path)) == 1


def test_a_backup_whose_dump_changed_is_refused(tmp_path: Path) -> None:
    backup = make_backup(tmp_path, START)
    assert check_backup(backup)["database"] == "stancework"

    (backup / DATABASE_DUMP).write_bytes(b"PGDMP truncated")

    with pytest.raises(BackupCorruptError, match="does not match the checksum"):
        check_backup(backup)


def test_a_directory_without_a_manifest_is_not_a_backup(tmp_path: Path) -> None:
    with pytest.raises(BackupCorruptError, match="not a complete backup"):
        check_backup(tmp_path)
