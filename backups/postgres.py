"""pg_dump and pg_restore of one database, described by a Django DATABASES entry.

Pure: no Django import. The password travels in PGPASSWORD, never on a command line (ps shows those).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

import psycopg
from psycopg.conninfo import make_conninfo

from backups.errors import NotPostgresError, PostgresToolError

POSTGRES_ENGINE = "django.db.backends.postgresql"
# Django's DATABASES keys and the libpq environment variables they become.
# How much of pg_dump's output is written at a time.
DUMP_CHUNK = 1 << 20
LIBPQ_VARIABLES = {"HOST": "PGHOST", "PORT": "PGPORT", "USER": "PGUSER", "PASSWORD": "PGPASSWORD"}


def database_name(database: Mapping[str, Any]) -> str:
    if database.get("ENGINE") != POSTGRES_ENGINE:
        raise NotPostgresError(f"backups need PostgreSQL; this database's engine is {database.get('ENGINE')}")
    if not database.get("NAME"):
        raise NotPostgresError("the database entry names no database")
    return str(database["NAME"])


def libpq_environment(database: Mapping[str, Any]) -> dict[str, str]:
    """PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE for the entry's non-empty values."""
    env = {var: str(database[key]) for key, var in LIBPQ_VARIABLES.items() if database.get(key)}
    return {**env, "PGDATABASE": database_name(database)}


def _run(argv: list[str], database: Mapping[str, Any]) -> None:
    env = {**os.environ, **libpq_environment(database)}
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise PostgresToolError(f"{argv[0]} is not installed (Debian: postgresql-client)") from None
    if done.returncode != 0:
        raise PostgresToolError(f"{argv[0]} {ending(done.returncode)}: {said(done.stderr)}")


def ending(returncode: int) -> str:
    """How a tool ended, in words: a negative status is the signal that killed it."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name} ({-returncode})"
    return f"failed with exit status {returncode}"


def said(stderr: str) -> str:
    return stderr.strip() or "(nothing on stderr)"


def dump_database(database: Mapping[str, Any], target: Path) -> None:
    """The whole database in pg_dump's custom format (compressed; pg_restore can pick from it).

    pg_dump writes to a pipe and this process writes the file, so a full disk is this process's
    OSError, with its errno, as for every other file a backup writes; pg_dump writing the file
    itself would die of SIGXFSZ under a file-size limit, or fail in words of its own."""
    with _start(["pg_dump", "--format=custom", f"--dbname={database_name(database)}"], database) as dump:
        stderr = _read_aside(dump.stderr)
        try:
            with target.open("wb") as out:
                shutil.copyfileobj(dump.stdout, out, DUMP_CHUNK)  # type: ignore[arg-type]  # piped: never None
        except BaseException:
            dump.kill()
            raise
        finally:
            dump.wait()
            stderr_text = stderr()
    if dump.returncode != 0:
        raise PostgresToolError(f"pg_dump {ending(dump.returncode)}: {said(stderr_text)}")


def _read_aside(stream: IO[bytes] | None) -> Callable[[], str]:
    """Read a tool's stderr in a thread of its own, so much said there cannot stall its output; what
    it said, once it ended."""
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(stream.read() if stream else b""), daemon=True)
    reader.start()

    def everything() -> str:
        reader.join()
        return b"".join(chunks).decode(errors="replace")

    return everything


def _start(argv: list[str], database: Mapping[str, Any]) -> subprocess.Popen[bytes]:
    env = {**os.environ, **libpq_environment(database)}
    try:
        return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise PostgresToolError(f"{argv[0]} is not installed (Debian: postgresql-client)") from None


def restore_database(database: Mapping[str, Any], source: Path, *, replace: bool) -> None:
    """Load a custom-format dump in one transaction: it all lands, or nothing does.

    Owners and grants are left out so a dump restores under whichever role the target uses;
    `replace` drops the dump's objects first (for a database that already holds them).
    """
    argv = ["pg_restore", "--exit-on-error", "--single-transaction", "--no-owner", "--no-acl"]
    if replace:
        argv += ["--clean", "--if-exists"]
    _run([*argv, f"--dbname={database_name(database)}", str(source)], database)


def count_tables(database: Mapping[str, Any]) -> int:
    """How many tables the public schema holds (0 for a freshly created database)."""
    env = libpq_environment(database)
    # None leaves a parameter out, so libpq falls back to its defaults exactly as pg_dump does.
    conninfo = make_conninfo(
        host=env.get("PGHOST"),
        port=env.get("PGPORT"),
        user=env.get("PGUSER"),
        password=env.get("PGPASSWORD"),
        dbname=env["PGDATABASE"],
        connect_timeout=10,
    )
    try:
        with psycopg.connect(conninfo) as connection:
            row = connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    except psycopg.OperationalError as error:
        raise PostgresToolError(f"cannot connect to database {env['PGDATABASE']}: {error}") from None
    return int(row[0]) if row else 0
