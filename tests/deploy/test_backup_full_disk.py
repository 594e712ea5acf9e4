"""A full disk during a backup or a restore (a file-size limit, RLIMIT_FSIZE, which pg_dump inherits) is
a clear error, and what was there before is as it was: the previous backups, the releases directory,
the database restored into."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dj_database_url
import pytest
from django.core.management import CommandError, call_command

from backups.layout import DATABASE_DUMP, STAMP, check_backup, complete_backups
from backups.postgres import count_tables
from rigs.databases import scratch_database
from tests.config.test_whole_files import disk_full_after

pytestmark = pytest.mark.postgres

NOTHING_KEPT = (
    r"cannot write the backup into .*: File too large; nothing kept, the previous backups are intact"
)


@pytest.fixture(autouse=True)
def releases(settings: Any, tmp_path: Path) -> Path:
    settings.SEARCH_SYNC = False
    settings.RELEASES_DIR = tmp_path / "releases"
    (settings.RELEASES_DIR / "0.1").mkdir(parents=True)
    (settings.RELEASES_DIR / "0.1" / "notes.txt").write_text("a release file\n")
    return settings.RELEASES_DIR


def contents(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


def previous_backup(root: Path) -> tuple[Path, dict[str, bytes]]:
    """One complete backup, and its files; returns once a new one would get a name of its own (they
    are named by the second)."""
    call_command("backup", "--dir", str(root), "--keep", "1")
    (made,) = complete_backups(root)
    while datetime.now(UTC).strftime(STAMP) in made.name:
        time.sleep(0.05)
    return made, contents(made)


def assert_intact(root: Path, made: Path, files: dict[str, bytes]) -> None:
    """The previous backup alone (not pruned for `--keep 1`), unchanged, and nothing half-written."""
    assert complete_backups(root) == [made] and contents(made) == files
    check_backup(made)
    assert sorted(p.name for p in root.iterdir()) == [".backup.lock", made.name]


# pg_dump runs in another process: the data must be committed.
@pytest.mark.django_db(transaction=True)
def test_a_disk_full_during_the_dump_is_a_clear_error_and_the_previous_backup_is_intact(
    tmp_path: Path,
) -> None:
    root = tmp_path / "backups"
    made, files = previous_backup(root)

    with pytest.raises(CommandError, match=NOTHING_KEPT), disk_full_after(len(files[DATABASE_DUMP]) // 2):
        call_command("backup", "--dir", str(root), "--keep", "1")

    assert_intact(root, made, files)


@pytest.mark.django_db(transaction=True)
def test_a_disk_full_during_the_releases_archive_is_a_clear_error_and_the_previous_backup_is_intact(
    tmp_path: Path, releases: Path
) -> None:
    root = tmp_path / "backups"
    made, files = previous_backup(root)
    dump = len(files[DATABASE_DUMP])
    (releases / "0.1" / "data.bin").write_bytes(os.urandom(4 * dump + (1 << 20)))  # does not compress

    with pytest.raises(CommandError, match=NOTHING_KEPT), disk_full_after(2 * dump):
        call_command("backup", "--dir", str(root), "--keep", "1")

    assert_intact(root, made, files)


@pytest.mark.django_db(transaction=True)
def test_a_disk_full_during_a_restore_is_a_clear_error_and_leaves_both_targets_as_they_were(
    tmp_path: Path, releases: Path
) -> None:
    (releases / "0.1" / "data.bin").write_bytes(os.urandom(1 << 20))
    call_command("backup", "--dir", str(tmp_path / "backups"))
    (backup,) = complete_backups(tmp_path / "backups")
    target = tmp_path / "restored-releases"
    target.mkdir()
    (target / "kept.txt").write_text("what was there\n")

    with scratch_database("restored") as fresh:
        with (
            pytest.raises(CommandError, match=r"cannot unpack the releases beside .*: File too large; "),
            disk_full_after(1 << 19),
        ):
            call_command(
                "restore", str(backup), "--database-url", fresh, "--releases-dir", str(target), "--replace"
            )
        assert count_tables(dj_database_url.parse(fresh)) == 0
    assert contents(target) == {"kept.txt": b"what was there\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backups", "releases", "restored-releases"]
