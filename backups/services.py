"""Back up and restore the database and the releases directory together."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections

from backups.archives import archive_directory, extract_archive
from backups.errors import BackupError, RestoreTargetError
from backups.layout import (
    DATABASE_DUMP,
    PARTIAL_SUFFIX,
    RELEASES_ARCHIVE,
    STAMP,
    backup_name,
    check_backup,
    prune_backups,
    write_manifest,
)
from backups.postgres import count_tables, database_name, dump_database, restore_database
from export.verify import verify_release

RELEASE_MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Backup:
    path: Path
    release_files: int
    pruned: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Restored:
    database: str
    releases_dir: Path
    releases: list[str]
    # Release directories whose files no longer verify against their manifests, with the problems.
    problems: dict[str, list[str]]


def _default_database() -> Mapping[str, Any]:
    return connections["default"].settings_dict


def create_backup(root: Path | None = None, keep: int | None = None) -> Backup:
    """Dump the database, archive RELEASES_DIR, record checksums, then keep the newest `keep`."""
    root = Path(root or settings.BACKUP_DIR)
    keep = keep or settings.BACKUP_KEEP
    database = _default_database()
    now = datetime.now(UTC)
    final = root / backup_name(now)
    partial = final.with_name(final.name + PARTIAL_SUFFIX)
    if final.exists() or partial.exists():
        raise BackupError(f"{final} already exists: one backup per second")
    partial.mkdir(parents=True)
    try:
        # The database first, then the files: a release is recorded only once its files are written,
        # so every release the dump knows is already complete on disk when the archive is made.
        dump_database(database, partial / DATABASE_DUMP)
        files = archive_directory(Path(settings.RELEASES_DIR), partial / RELEASES_ARCHIVE)
        write_manifest(partial, now, database=database_name(database), release_files=files)
        partial.rename(final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return Backup(final, files, prune_backups(root, keep))


def restore_backup(
    backup: Path,
    *,
    database: Mapping[str, Any] | None = None,
    releases_dir: Path | None = None,
    replace: bool = False,
) -> Restored:
    """Bring a backup back into a database and a releases directory (by default the configured ones).

    Both targets must be empty unless `replace`: then the dump's tables are dropped and recreated,
    and the existing releases directory is kept beside the new one as `<name>.before-restore-<time>`.
    Every restored release is checked against its manifest.
    """
    check_backup(backup)
    database = database or _default_database()
    releases_dir = Path(releases_dir or settings.RELEASES_DIR)
    if not replace:
        _refuse_non_empty(database, releases_dir)
    restore_database(database, backup / DATABASE_DUMP, replace=replace)
    _restore_releases(backup / RELEASES_ARCHIVE, releases_dir)
    releases = sorted(p.name for p in releases_dir.iterdir() if (p / RELEASE_MANIFEST).is_file())
    problems = {name: [str(p) for p in verify_release(releases_dir / name)] for name in releases}
    return Restored(database_name(database), releases_dir, releases, {k: v for k, v in problems.items() if v})


def _refuse_non_empty(database: Mapping[str, Any], releases_dir: Path) -> None:
    tables = count_tables(database)
    if tables:
        raise RestoreTargetError(
            f"database {database_name(database)} already has {tables} tables: restore into a new "
            "database, or pass --replace to overwrite it"
        )
    if releases_dir.is_dir() and any(releases_dir.iterdir()):
        raise RestoreTargetError(f"{releases_dir} is not empty: pass --replace to set it aside")


def _restore_releases(archive: Path, releases_dir: Path) -> None:
    """Unpack beside the target, then swap it in, so a failed unpack leaves the target as it was."""
    releases_dir.parent.mkdir(parents=True, exist_ok=True)
    unpacked = Path(tempfile.mkdtemp(prefix=f".{releases_dir.name}-restore-", dir=releases_dir.parent))
    unpacked.chmod(0o755)  # mkdtemp's 0700 would outlive the swap
    try:
        extract_archive(archive, unpacked)
    except BaseException:
        shutil.rmtree(unpacked, ignore_errors=True)
        raise
    if releases_dir.is_dir() and any(releases_dir.iterdir()):
        stamp = datetime.now(UTC).strftime(STAMP)
        releases_dir.rename(releases_dir.with_name(f"{releases_dir.name}.before-restore-{stamp}"))
    elif releases_dir.is_dir():
        releases_dir.rmdir()
    unpacked.rename(releases_dir)
