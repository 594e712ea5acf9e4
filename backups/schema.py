"""What a backup says about itself beyond its checksums: the releases it holds and the database schema
it was made at, checked on restore against the archive and against this code's migrations.

backup.json lists `releases` (the folders of the releases the database knew) and `schema` (each app's
last applied migration). A restore refuses an archive that lacks a listed release or holds a different
number of files than recorded, and a backup from a newer schema than this code knows; a backup from an
older schema restores, and says to run `manage.py migrate` next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from backups.errors import BackupCorruptError, BackupError

MIGRATE = "run `manage.py migrate` now to bring the restored database up to this version"


class NewerSchemaError(BackupError):
    """A backup made by a newer version than this code: its schema is unknown here."""


def applied_schema(connection: BaseDatabaseWrapper) -> dict[str, str]:
    """Each app's last applied migration in this database."""
    last: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).applied_migrations():
        last[app] = max(last.get(app, name), name)
    return dict(sorted(last.items()))


def code_schema() -> tuple[set[tuple[str, str]], dict[str, str]]:
    """Every migration this code knows, and each app's last one."""
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    return set(graph.nodes), {app: name for app, name in graph.leaf_nodes()}


def schema_notes(manifest: Mapping[str, Any], code: tuple[set[tuple[str, str]], dict[str, str]]) -> list[str]:
    """What the operator must do after restoring; NewerSchemaError for a backup this code cannot read."""
    known, leaves = code
    recorded = manifest.get("schema")
    if not isinstance(recorded, dict):
        return [f"this backup records no schema version (it was made by an older version): {MIGRATE}"]
    unknown = sorted(f"{app} {name}" for app, name in recorded.items() if (app, name) not in known)
    if unknown:
        raise NewerSchemaError(
            f"this backup was made at a schema this version does not know ({', '.join(unknown[:5])}): "
            "restore it with the version of Stancework that made it"
        )
    behind = sorted(app for app, name in leaves.items() if recorded.get(app) != name)
    if behind:
        return [f"this backup's schema is older than this version's ({', '.join(behind)}): {MIGRATE}"]
    return []


def check_listed(manifest: Mapping[str, Any], unpacked: Path, present: Sequence[str]) -> None:
    """Every release backup.json lists is in the archive (with its manifest), and no file is missing."""
    listed = manifest.get("releases")
    if isinstance(listed, list):
        missing = sorted(set(map(str, listed)) - set(present))
        if missing:
            raise BackupCorruptError(
                f"backup.json lists {len(missing)} release(s) the archive lacks or holds without "
                f"manifest.json: {', '.join(missing[:10])}"
            )
    files = sum(1 for path in unpacked.rglob("*") if path.is_file())
    recorded = manifest.get("release_files")
    if isinstance(recorded, int) and files != recorded:
        raise BackupCorruptError(f"backup.json records {recorded} release file(s); the archive holds {files}")
