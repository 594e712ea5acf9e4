"""A backup killed mid-dump leaves a `.partial` the next backup removes; what a backup writes is private."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from backups.layout import complete_backups
from corpus.models import Topic
from rigs.databases import configured_url, with_database

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 60


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def pg_dump_waiting(url: str) -> bool:
    with psycopg.connect(url) as watcher:
        row = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE application_name = 'pg_dump' AND wait_event_type = 'Lock'"
            " AND datname = current_database()"  # not another test's dump (xdist, the same server)
        ).fetchone()
    return bool(row and row[0])


def modes(path: Path) -> set[int]:
    return {stat.S_IMODE(p.stat().st_mode) for p in path.iterdir()}


# pg_dump and the killed backup are other processes: they must see committed tables.
@pytest.mark.django_db(transaction=True)
def test_a_backup_killed_mid_dump_leaves_a_partial_that_the_next_backup_removes(tmp_path: Path) -> None:
    url = with_database(configured_url(), connection.settings_dict["NAME"])
    root = tmp_path / "backups"
    env = {**os.environ, "DATABASE_URL": url, "BACKUP_DIR": str(root), "LOG_LEVEL": "WARNING"}
    with psycopg.connect(url) as holder:
        # pg_dump waits for this lock: the backup is killed while its dump is certainly under way.
        holder.execute(f'LOCK TABLE "{Topic._meta.db_table}" IN ACCESS EXCLUSIVE MODE')
        backup = subprocess.Popen(
            [sys.executable, "manage.py", "backup"], cwd=ROOT, env=env, start_new_session=True
        )
        try:
            wait_for(lambda: pg_dump_waiting(url), "pg_dump waits on the held lock")
            # As a container is stopped: the backup and its pg_dump together.
            os.killpg(backup.pid, signal.SIGKILL)
            backup.wait(timeout=WAIT_SECONDS)
        finally:
            if backup.poll() is None:
                os.killpg(backup.pid, signal.SIGKILL)
                backup.wait()
    (left,) = root.glob("*.partial")
    assert (left / "database.dump").exists() and complete_backups(root) == []

    call_command("backup", "--dir", str(root))

    (made,) = complete_backups(root)
    assert not left.exists() and sorted(p.name for p in root.iterdir()) == [".backup.lock", made.name]
    assert stat.S_IMODE(root.stat().st_mode) == stat.S_IMODE(made.stat().st_mode) == 0o700
    assert modes(made) == {0o600} and len(list(made.iterdir())) == 3
