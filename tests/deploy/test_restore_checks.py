"""A restore checks what backup.json lists: every listed release comes back from the archive, verified,
and the backup's schema is compared with this code's (an older one restores and says to migrate)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import dj_database_url
import pytest
from django.core.management import CommandError, call_command

from backups.archives import archive_directory, extract_archive
from backups.layout import MANIFEST, RELEASES_ARCHIVE, complete_backups, sha256_of
from backups.postgres import count_tables
from export.models import Release
from export.services import build_release
from rigs.databases import scratch_database

pytestmark = pytest.mark.postgres


@pytest.fixture(autouse=True)
def no_index_sync(settings: Any) -> None:
    settings.SEARCH_SYNC = False


@pytest.fixture
def backup(simulated_job: Any, releases_dir: Path, tmp_path: Path) -> Path:
    build_release("0.1")
    call_command("backup", "--dir", str(tmp_path / "backups"))
    (made,) = complete_backups(tmp_path / "backups")
    return made


def forge(backup: Path, tmp_path: Path, change: Any) -> None:
    """Change the releases as a forger would, and record the new archive's checksum in backup.json."""
    tree = tmp_path / "forged"
    extract_archive(backup / RELEASES_ARCHIVE, tree)
    change(tree)
    archive_directory(tree, backup / RELEASES_ARCHIVE)
    manifest = json.loads((backup / MANIFEST).read_text())
    manifest["files"][RELEASES_ARCHIVE]["sha256"] = sha256_of(backup / RELEASES_ARCHIVE)
    (backup / MANIFEST).write_text(json.dumps(manifest))


def restore(backup: Path, fresh: str, releases: Path) -> None:
    call_command("restore", str(backup), "--database-url", fresh, "--releases-dir", str(releases))


def _empty(tree: Path) -> None:
    for path in tree.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def _without_manifests(tree: Path) -> None:
    for manifest in tree.glob("*/manifest.json"):
        manifest.unlink()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", [_empty, _without_manifests], ids=["empty", "manifest removed"])
def test_restore_refuses_an_archive_missing_a_listed_release(
    backup: Path, tmp_path: Path, change: Any
) -> None:
    directory = Release.objects.get().directory
    assert json.loads((backup / MANIFEST).read_text())["releases"] == [directory]
    forge(backup, tmp_path, change)

    refused = pytest.raises(CommandError, match=f"lists 1 release.* the archive lacks .*{directory}")
    with scratch_database("restored") as fresh, refused:
        try:
            restore(backup, fresh, tmp_path / "restored")
        finally:
            assert count_tables(dj_database_url.parse(fresh)) == 0  # nothing restored
    assert not (tmp_path / "restored").exists()


@pytest.mark.django_db(transaction=True)
def test_an_older_backup_restores_and_says_to_migrate(backup: Path, tmp_path: Path, capsys: Any) -> None:
    manifest = json.loads((backup / MANIFEST).read_text())
    assert manifest["schema"]["export"]  # recorded
    del manifest["schema"]  # as a backup made before schemas were recorded
    (backup / MANIFEST).write_text(json.dumps(manifest))

    with scratch_database("restored") as fresh:
        restore(backup, fresh, tmp_path / "restored")

    said = capsys.readouterr().out
    assert "restored database" in said
    assert "records no schema version" in said and "run `manage.py migrate` now" in said


@pytest.mark.django_db(transaction=True)
def test_a_backup_from_a_newer_schema_is_refused_with_the_way_forward(backup: Path, tmp_path: Path) -> None:
    manifest = json.loads((backup / MANIFEST).read_text())
    manifest["schema"]["export"] = "9999_from_the_future"
    (backup / MANIFEST).write_text(json.dumps(manifest))

    refused = pytest.raises(CommandError, match=r"export 9999_from_the_future.*version of Stancework")
    with scratch_database("restored") as fresh, refused:
        restore(backup, fresh, tmp_path / "restored")
