"""A restore is all or nothing: whatever is wrong with a backup, the database and the releases directory
it was to replace are left exactly as they were, and no half-unpacked folder stays behind."""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dj_database_url
import psycopg
import pytest
from django.core.management import CommandError, call_command

from annotation.ledger.models import LedgerEntry
from annotation.models import Job, Response
from backups.layout import DATABASE_DUMP, MANIFEST, RELEASES_ARCHIVE, complete_backups, sha256_of
from backups.postgres import count_tables
from corpus.models import Topic
from export.services import build_release
from rigs.databases import scratch_database
from tests.deploy.test_backup_restore import count_in

pytestmark = pytest.mark.postgres

MARKER_TOPIC = "written-after-the-restore"


def recompute_checksum(backup: Path, name: str) -> None:
    """As a careless copy tool or an attacker would: the manifest made to agree with the file."""
    manifest = json.loads((backup / MANIFEST).read_text())
    manifest["files"][name] = {"bytes": (backup / name).stat().st_size, "sha256": sha256_of(backup / name)}
    (backup / MANIFEST).write_text(json.dumps(manifest))


def truncate(path: Path, keep: float) -> None:
    path.write_bytes(path.read_bytes()[: int(path.stat().st_size * keep)])


def append_a_byte_to_the_dump(backup: Path) -> None:
    with (backup / DATABASE_DUMP).open("ab") as dump:
        dump.write(b"\0")


def rewrite_the_dump(backup: Path) -> None:
    (backup / DATABASE_DUMP).write_bytes(b"PGDMP truncated")


def remove_the_manifest(backup: Path) -> None:
    (backup / MANIFEST).unlink()


def truncate_the_archive(backup: Path) -> None:
    truncate(backup / RELEASES_ARCHIVE, 0.0)
    (backup / RELEASES_ARCHIVE).write_bytes(b"\x1f\x8b" + b"\0" * 18)


def an_archive_leading_out_of_the_target(backup: Path) -> None:
    with tarfile.open(backup / RELEASES_ARCHIVE, "w:gz") as tar:
        member = tarfile.TarInfo("../escaped.txt")
        member.size = 3
        tar.addfile(member, io.BytesIO(b"bad"))


def truncate_the_archive_and_recompute_its_checksum(backup: Path) -> None:
    truncate(backup / RELEASES_ARCHIVE, 0.5)
    recompute_checksum(backup, RELEASES_ARCHIVE)


def truncate_the_dump_and_recompute_its_checksum(backup: Path) -> None:
    truncate(backup / DATABASE_DUMP, 0.6)
    recompute_checksum(backup, DATABASE_DUMP)


def alter_a_release_file_and_recompute_the_checksum(backup: Path) -> None:
    archive = backup / RELEASES_ARCHIVE
    with tarfile.open(archive, "r:gz") as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]  # type: ignore[union-attr]
    with tarfile.open(archive, "w:gz") as tar:
        for member, body in members:
            if body is not None and member.name.endswith(".jsonl"):
                body = body.replace(b'"', b"'", 1)
                member.size = len(body)
            tar.addfile(member, io.BytesIO(body) if body is not None else None)
    recompute_checksum(backup, RELEASES_ARCHIVE)


CORRUPTIONS: list[Callable[[Path], None]] = [
    append_a_byte_to_the_dump,
    rewrite_the_dump,
    remove_the_manifest,
    truncate_the_archive,
    an_archive_leading_out_of_the_target,
    truncate_the_archive_and_recompute_its_checksum,
    truncate_the_dump_and_recompute_its_checksum,
    alter_a_release_file_and_recompute_the_checksum,
]


def corrupted_copy(backup: Path, corrupt: Callable[[Path], None], where: Path) -> Path:
    copy = where / f"{corrupt.__name__}" / backup.name
    copy.mkdir(parents=True)
    for path in backup.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    corrupt(copy)
    return copy


def state_of(url: str, releases: Path) -> dict[str, Any]:
    """What a failed restore must leave alone: row counts, the marker row, every file and its bytes."""
    with psycopg.connect(url) as target:
        marker = target.execute(
            f'SELECT count(*) FROM "{Topic._meta.db_table}" WHERE slug = %s', [MARKER_TOPIC]
        ).fetchone()
    siblings = sorted(p.name for p in releases.parent.iterdir() if p.name != "backups")
    files = {str(p.relative_to(releases)): p.read_bytes() for p in releases.rglob("*") if p.is_file()}
    counts = {model.__name__: count_in(url, model) for model in (Response, LedgerEntry, Job, Topic)}
    return {"counts": counts, "marker": marker, "siblings": siblings, "files": files}


@pytest.fixture
def backup(simulated_job: Job, releases_dir: Path, tmp_path: Path) -> Path:
    """A whole backup of the database (a simulated job's work) and a release built from it."""
    build_release("0.1")
    call_command("backup", "--dir", str(tmp_path / "backups"))
    (backup,) = complete_backups(tmp_path / "backups")
    return backup


@pytest.mark.django_db(transaction=True)
def test_every_corrupted_backup_leaves_a_restored_target_as_it_was(backup: Path, tmp_path: Path) -> None:
    target_dir = tmp_path / "target"
    target_dir.mkdir()
    releases = target_dir / "releases"

    with scratch_database("restored") as url:
        call_command("restore", str(backup), "--database-url", url, "--releases-dir", str(releases))
        with psycopg.connect(url) as target:
            target.execute(
                f'INSERT INTO "{Topic._meta.db_table}" (slug, name) VALUES (%s, %s)', [MARKER_TOPIC, "x"]
            )
        (releases / "operator-notes.txt").write_text("kept")
        before = state_of(url, releases)
        for corrupt in CORRUPTIONS:
            bad = corrupted_copy(backup, corrupt, tmp_path / "corrupted")
            with pytest.raises(CommandError):
                call_command(
                    "restore", str(bad), "--database-url", url, "--releases-dir", str(releases), "--replace"
                )
            assert state_of(url, releases) == before, corrupt.__name__
        assert not (tmp_path / "escaped.txt").exists() and not (target_dir / "escaped.txt").exists()


@pytest.mark.django_db(transaction=True)
def test_a_truncated_archive_with_a_recomputed_checksum_leaves_an_empty_target_empty(
    backup: Path, tmp_path: Path
) -> None:
    bad = corrupted_copy(backup, truncate_the_archive_and_recompute_its_checksum, tmp_path / "corrupted")
    releases = tmp_path / "target" / "releases"

    with scratch_database("restored") as url:
        with pytest.raises(CommandError, match="cannot be unpacked"):
            call_command("restore", str(bad), "--database-url", url, "--releases-dir", str(releases))
        assert count_tables(dj_database_url.parse(url)) == 0
        # Not even the first half of the archive, nor a temporary folder, is left.
        assert list((tmp_path / "target").iterdir()) == []
        # And the same backup, once whole again, restores: nothing was left that refuses it.
        call_command("restore", str(backup), "--database-url", url, "--releases-dir", str(releases))
        assert count_in(url, Response) == Response.objects.count() > 0
