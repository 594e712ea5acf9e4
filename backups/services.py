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
from backups.errors import BackupCorruptError, BackupError, RestoreTargetError
from backups.layout import (
    DATABASE_DUMP,
    PARTIAL_SUFFIX,
    PRIVATE_DIR,
    RELEASES_ARCHIVE,
    STAMP,
    backup_lock,
    backup_name,
    check_backup,
    make_private,
    prune_backups,
    remove_stale_partials,
    write_manifest,
)
from backups.postgres import count_tables, database_name, dump_database, restore_database
from backups.schema import applied_schema, check_listed, code_schema, schema_notes
from export.models import Release
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
    notes: list[str] = field(default_factory=list)  # what the operator must do next (an older schema)


def _default_database() -> Mapping[str, Any]:
    return connections["default"].settings_dict


def create_backup(root: Path | None = None, keep: int | None = None) -> Backup:
    """Dump the database, archive RELEASES_DIR, record checksums, then keep the newest `keep`.

    Under the root's lock: a `.partial` a killed backup left is removed first, not kept for ever."""
    root = Path(root or settings.BACKUP_DIR)
    keep = keep or settings.BACKUP_KEEP
    with backup_lock(root):
        remove_stale_partials(root)
        final, files = _write_backup(root)
        return Backup(final, files, prune_backups(root, keep))


def _write_backup(root: Path) -> tuple[Path, int]:
    database = _default_database()
    now = datetime.now(UTC)
    final = root / backup_name(now)
    partial = final.with_name(final.name + PARTIAL_SUFFIX)
    if final.exists() or partial.exists():
        raise BackupError(f"{final} already exists: one backup per second")
    partial.mkdir(mode=PRIVATE_DIR)
    partial.chmod(PRIVATE_DIR)  # mkdir's mode passes through the umask
    try:
        # The database first, then the files: a release is recorded only once its files are written,
        # so every release the dump knows is already complete on disk when the archive is made.
        dump_database(database, partial / DATABASE_DUMP)
        files = archive_directory(Path(settings.RELEASES_DIR), partial / RELEASES_ARCHIVE)
        write_manifest(
            partial,
            now,
            database=database_name(database),
            release_files=files,
            releases=_release_directories(),
            schema=applied_schema(connections["default"]),
        )
        make_private(partial)
        partial.rename(final)
    except OSError as error:  # a full disk, mostly: nothing half-written is kept
        shutil.rmtree(partial, ignore_errors=True)
        raise BackupError(
            f"cannot write the backup into {root}: {_reason(error)}; nothing kept, the previous backups "
            "are intact"
        ) from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return final, files


def _reason(error: OSError) -> str:
    """An OS error in words ("No space left on device"), without its traceback."""
    return error.strerror or str(error)


def _release_directories() -> list[str]:
    """The releases the database knows, by folder: each must come back from the archive, verified."""
    return sorted(Release.objects.values_list("directory", flat=True))


def restore_backup(
    backup: Path,
    *,
    database: Mapping[str, Any] | None = None,
    releases_dir: Path | None = None,
    replace: bool = False,
) -> Restored:
    """Bring a backup back into a database and a releases directory (by default the configured ones).

    All or nothing: the archive is unpacked into a temporary folder beside the target and every
    release in it verified against its manifest; only then is the database restored, in one
    transaction; only then is the folder moved into place. Any failure before leaves both targets as
    they were. Both targets must be empty unless `replace`: then the dump's tables are dropped and
    recreated (in that same transaction), and the existing releases directory is kept beside the new
    one as `<name>.before-restore-<time>`.
    """
    manifest = check_backup(backup)
    notes = schema_notes(manifest, code_schema())
    database = database or _default_database()
    releases_dir = Path(releases_dir or settings.RELEASES_DIR)
    if not replace:
        _refuse_non_empty(database, releases_dir)
    try:
        unpacked = _unpack_and_verify(backup / RELEASES_ARCHIVE, releases_dir, manifest)
    except OSError as error:
        raise BackupError(
            f"cannot unpack the releases beside {releases_dir}: {_reason(error)}; the database and "
            f"{releases_dir} are as they were"
        ) from None
    try:
        restore_database(database, backup / DATABASE_DUMP, replace=replace)
    except BaseException:
        shutil.rmtree(unpacked, ignore_errors=True)
        raise
    releases = _releases_in(unpacked)
    _move_into_place(unpacked, releases_dir)
    return Restored(database_name(database), releases_dir, releases, notes)


def _refuse_non_empty(database: Mapping[str, Any], releases_dir: Path) -> None:
    tables = count_tables(database)
    if tables:
        raise RestoreTargetError(
            f"database {database_name(database)} already has {tables} tables: restore into a new "
            "database, or pass --replace to overwrite it"
        )
    if releases_dir.is_dir() and any(releases_dir.iterdir()):
        raise RestoreTargetError(f"{releases_dir} is not empty: pass --replace to set it aside")


def _releases_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if (p / RELEASE_MANIFEST).is_file())


def _unpack_and_verify(archive: Path, releases_dir: Path, manifest: Mapping[str, Any]) -> Path:
    """The archive unpacked into a new folder beside the target, every release in it verified and every
    release backup.json lists present; the folder, or BackupCorruptError (and no folder) otherwise."""
    releases_dir.parent.mkdir(parents=True, exist_ok=True)
    unpacked = Path(tempfile.mkdtemp(prefix=f".{releases_dir.name}-restore-", dir=releases_dir.parent))
    try:
        unpacked.chmod(0o755)  # mkdtemp's 0700 would outlive the move; releases are served
        extract_archive(archive, unpacked)
        check_listed(manifest, unpacked, _releases_in(unpacked))
        problems = {name: verify_release(unpacked / name) for name in _releases_in(unpacked)}
        bad = {name: found for name, found in problems.items() if found}
        if bad:
            listed = "; ".join(f"{name}: {', '.join(map(str, found))}" for name, found in bad.items())
            raise BackupCorruptError(f"{archive}: release(s) do not verify against their manifests: {listed}")
    except BaseException:
        shutil.rmtree(unpacked, ignore_errors=True)
        raise
    return unpacked


def _move_into_place(unpacked: Path, releases_dir: Path) -> None:
    """Swap the verified folder in (renames within one folder: nothing half-moved is ever seen)."""
    if releases_dir.is_dir() and any(releases_dir.iterdir()):
        stamp = datetime.now(UTC).strftime(STAMP)
        releases_dir.rename(releases_dir.with_name(f"{releases_dir.name}.before-restore-{stamp}"))
    elif releases_dir.is_dir():
        releases_dir.rmdir()
    unpacked.rename(releases_dir)
