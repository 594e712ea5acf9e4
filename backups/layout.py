"""A backup directory and the root that holds them: names, the checksummed manifest, pruning.

A backup is `<root>/stancework-<UTC time>/` holding database.dump, releases.tar.gz and backup.json.
It is written under a `.partial` name and renamed when complete, so a crash never leaves something
that looks like a backup, and pruning only ever counts complete ones. A backup or a prune holds the
root's lock (`backup_lock`), so any `.partial` it finds is a killed backup's, and it removes it.
The backups hold password hashes, API tokens, sessions and raw worker ids: folders are 0700 and
files 0600, the root included. Pure: no Django import.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from backups.errors import BackupCorruptError, BackupError

PREFIX = "stancework-"
STAMP = "%Y%m%dT%H%M%SZ"
COMPLETE = re.compile(rf"^{PREFIX}\d{{8}}T\d{{6}}Z$")
PARTIAL_SUFFIX = ".partial"
MANIFEST = "backup.json"
DATABASE_DUMP = "database.dump"
RELEASES_ARCHIVE = "releases.tar.gz"
FORMAT = 1
LOCK = ".backup.lock"
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def backup_name(now: datetime) -> str:
    return PREFIX + now.astimezone(UTC).strftime(STAMP)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(directory: Path, created: datetime, **about: Any) -> dict[str, Any]:
    """Record when, from what, and every file's size and sha256 (restore checks them first)."""
    files = {
        name: {"bytes": (directory / name).stat().st_size, "sha256": sha256_of(directory / name)}
        for name in (DATABASE_DUMP, RELEASES_ARCHIVE)
    }
    manifest = {"format": FORMAT, "created": created.astimezone(UTC).isoformat(), **about, "files": files}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def check_backup(directory: Path) -> dict[str, Any]:
    """The manifest of a complete, unaltered backup; BackupCorruptError naming what is wrong otherwise."""
    if not (directory / MANIFEST).is_file():
        raise BackupCorruptError(f"{directory}: no {MANIFEST}; not a complete backup")
    try:
        manifest: dict[str, Any] = json.loads((directory / MANIFEST).read_text())
        files = manifest["files"]
    except (ValueError, KeyError) as error:
        raise BackupCorruptError(f"{directory / MANIFEST}: unreadable ({error})") from None
    for name in (DATABASE_DUMP, RELEASES_ARCHIVE):
        path = directory / name
        if not path.is_file():
            raise BackupCorruptError(f"{directory}: {name} is missing")
        if name not in files or sha256_of(path) != files[name].get("sha256"):
            raise BackupCorruptError(f"{path}: does not match the checksum recorded in {MANIFEST}")
    return manifest


def complete_backups(root: Path) -> list[Path]:
    """The complete backups under root, oldest first (the names sort by time)."""
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if p.is_dir() and COMPLETE.match(p.name) and (p / MANIFEST).is_file()]
    return sorted(found, key=lambda p: p.name)


def private_root(root: Path) -> Path:
    """The backups root, made if missing, readable by its owner only."""
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(PRIVATE_DIR)
    return root


def make_private(directory: Path) -> None:
    """A backup folder and its files readable by their owner only."""
    directory.chmod(PRIVATE_DIR)
    for path in directory.iterdir():
        path.chmod(PRIVATE_FILE)


@contextmanager
def backup_lock(root: Path) -> Iterator[None]:
    """Held while a backup is written or the root pruned: one at a time, across processes and
    containers that share the volume. A second one is refused, not queued (the next is due anyway)."""
    with (private_root(root) / LOCK).open("a") as handle:
        Path(handle.name).chmod(PRIVATE_FILE)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BackupError(f"another backup or prune of {root} is running") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def remove_stale_partials(root: Path) -> list[Path]:
    """Delete what killed backups left (call under `backup_lock`: then no backup is being written)."""
    stale = sorted(p for p in root.glob(f"{PREFIX}*{PARTIAL_SUFFIX}") if p.is_dir())
    for path in stale:
        shutil.rmtree(path)
    return stale


def prune_backups(root: Path, keep: int) -> list[Path]:
    """Delete all but the newest `keep` complete backups, and every stale `.partial` (call under
    `backup_lock`); the deleted ones, oldest first."""
    if keep < 1:
        raise ValueError(f"keep must be at least 1, not {keep}")
    old = complete_backups(root)[:-keep]
    for path in old:
        shutil.rmtree(path)
    return remove_stale_partials(root) + old
