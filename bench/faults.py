"""Faults on the money path: each scenario of bench/rigs/fault_rig.py with 200 bonus payments.

A real Celery worker process on its own throwaway redis-server pays Prolific bonuses at a loopback
fake Prolific; half-way, one fault lands (worker SIGKILLed, Redis restarted, the worker's database
sessions terminated, a worker frozen past the stale limit). The sweeper and resolver then settle
the ledger. One line per scenario: payments requested, confirmed, failed, lost, paid twice, ledger
rows left open, and the seconds from the fault until every payment was decided.

Needs PostgreSQL (DATABASE_URL) and the `redis-server` binary; the child runs on a throwaway
database created next to DATABASE_URL's and dropped afterwards.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection

from bench._child import ChildError, run_child

PAYMENTS = 200
TIMEOUT = 300  # seconds: the bound on each wait of a scenario

CHILD = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from bench.rigs.fault_rig import SCENARIOS, run_scenario
for name in SCENARIOS:
    print(run_scenario(name, {payments}, timeout={timeout}).line(), flush=True)
"""


@contextmanager
def throwaway_database() -> Iterator[str]:
    """A fresh PostgreSQL database on DATABASE_URL's server, dropped afterwards; its URL."""
    db = connection.settings_dict
    name = f"{db['NAME']}_faults_{uuid.uuid4().hex[:8]}"
    admin = {"host": db["HOST"], "port": db["PORT"], "user": db["USER"], "password": db["PASSWORD"]}
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
        yield f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{name}"
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True, **admin) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def missing() -> str:
    if connection.vendor != "postgresql":
        return "needs DATABASE_URL pointing at PostgreSQL (a database session is one of the faults)"
    if shutil.which("redis-server") is None:
        return "needs the redis-server binary (each scenario starts and restarts its own)"
    return ""


def main() -> None:
    reason = missing()
    if reason:
        print(f"faults skipped: {reason}", flush=True)
        return
    try:
        with throwaway_database() as url:
            lines = run_child(CHILD.format(payments=PAYMENTS, timeout=TIMEOUT), database_url=url)
    except ChildError as error:
        lines = [f"failed: {error}"]
    for line in lines:
        print(f"faults {line}", flush=True)
