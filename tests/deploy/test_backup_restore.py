"""A backup restores: a built release, the crowd's responses and the money ledger come back whole, into a
fresh database and releases directory, through the same commands an operator runs."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import dj_database_url
import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Model, Sum

from annotation.ledger.models import LedgerEntry
from annotation.models import Assignment, Job, Response
from backups.layout import DATABASE_DUMP, complete_backups
from backups.postgres import count_tables
from backups.tasks import create_backup as create_backup_task
from export.models import Release
from export.services import build_release
from export.verify import verify_release
from rigs.databases import configured_url, scratch_database, with_database

pytestmark = pytest.mark.postgres


@pytest.fixture(autouse=True)
def no_index_sync(settings: Any) -> None:
    # Committed saves would each sync the search index (seconds in all); backups do not include it.
    settings.SEARCH_SYNC = False


def add_ledger(job: Job) -> None:
    """One confirmed approval and a bonus per assignment, as a market job would have recorded."""
    for assignment in Assignment.objects.filter(job=job):
        for kind, amount in (("approve", Decimal("0.00")), ("bonus", Decimal("0.37"))):
            LedgerEntry.objects.create(
                kind=kind,
                market="mturk",
                job=job,
                assignment=assignment,
                amount=amount,
                token=f"{kind}-{assignment.pk}",
                intent=f"{kind}-{assignment.pk}",
                state="confirmed",
            )


def count_in(url: str, model: type[Model]) -> int:
    with psycopg.connect(url) as restored:
        row = restored.execute(f'SELECT count(*) FROM "{model._meta.db_table}"').fetchone()
    return int(row[0]) if row else -1


def ledger_total_in(url: str) -> Decimal:
    with psycopg.connect(url) as restored:
        row = restored.execute(f'SELECT sum(amount) FROM "{LedgerEntry._meta.db_table}"').fetchone()
    return Decimal(row[0]) if row else Decimal(-1)


# pg_dump runs in another process: the data must be committed.
@pytest.mark.django_db(transaction=True)
def test_a_backup_restores_into_a_fresh_database_and_releases_dir_and_again_with_replace(
    simulated_job: Job, releases_dir: Path, tmp_path: Path, capsys: Any
) -> None:
    release = build_release("0.1")
    add_ledger(simulated_job)
    call_command("backup", "--dir", str(tmp_path / "backups"), "--keep", "2")
    (backup,) = complete_backups(tmp_path / "backups")

    with scratch_database("restored") as fresh:
        restored_releases = tmp_path / "restored-releases"
        target = ["--database-url", fresh, "--releases-dir", str(restored_releases)]
        call_command("restore", str(backup), *target)

        assert verify_release(restored_releases / release.directory) == []
        for model in (Response, LedgerEntry, Release, Job):
            assert count_in(fresh, model) == model.objects.count() > 0, model.__name__
        assert ledger_total_in(fresh) == LedgerEntry.objects.aggregate(total=Sum("amount"))["total"] > 0

        # Over what it restored, as an operator restores over a live database: --replace.
        call_command("restore", str(backup), *target, "--replace")
        assert count_in(fresh, Response) == Response.objects.count()
        assert verify_release(restored_releases / release.directory) == []
        (set_aside,) = tmp_path.glob("restored-releases.before-restore-*")
        assert (set_aside / release.directory / "manifest.json").is_file()
    assert "restored database" in capsys.readouterr().out


@pytest.mark.django_db
def test_restore_refuses_a_database_that_already_has_tables(tmp_path: Path) -> None:
    call_command("backup", "--dir", str(tmp_path / "backups"))
    (backup,) = complete_backups(tmp_path / "backups")
    in_use = with_database(configured_url(), connection.settings_dict["NAME"])

    with pytest.raises(CommandError, match=r"already has \d+ tables: restore into a new database"):
        call_command("restore", str(backup), "--database-url", in_use, "--releases-dir", str(tmp_path / "r"))
    assert not (tmp_path / "r").exists()


@pytest.mark.django_db
def test_restore_refuses_a_backup_whose_dump_was_altered(tmp_path: Path) -> None:
    call_command("backup", "--dir", str(tmp_path / "backups"))
    (backup,) = complete_backups(tmp_path / "backups")
    with (backup / DATABASE_DUMP).open("ab") as dump:
        dump.write(b"\0")

    with scratch_database("restored") as fresh:
        with pytest.raises(CommandError, match="does not match the checksum"):
            call_command("restore", str(backup), "--database-url", fresh, "--releases-dir", str(tmp_path))
        assert count_tables(dj_database_url.parse(fresh)) == 0


@pytest.mark.django_db
def test_the_scheduled_backup_task_runs_the_backup_on_its_own_queue(settings: Any, tmp_path: Path) -> None:
    settings.BACKUP_DIR = tmp_path / "scheduled"

    written = create_backup_task.delay().get()

    assert create_backup_task.queue == settings.BACKUP_QUEUE == "backups"
    assert complete_backups(tmp_path / "scheduled") == [Path(written)]
