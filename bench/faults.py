"""Faults on the money path: each scenario of rigs/fault_rig.py with 200 bonus payments.

A real Celery worker process on its own throwaway redis-server pays Prolific bonuses at a loopback
fake Prolific; half-way, one fault lands (worker SIGKILLed, Redis restarted, the worker's database
sessions terminated, a worker frozen past the stale limit). The sweeper and resolver then settle
the ledger. One line per scenario: payments requested, confirmed, failed, lost, paid twice, ledger
rows left open, and the seconds from the fault until every payment was decided.

Before them, two faults markets make by themselves (rigs/market_faults.py, in the child's own
process against the platform's fakes): MTurk down for 25 simulated hours (past its tokens' 24-hour
lifetime) while 200 bonuses are paid, and 30 Prolific jobs cancelled while their publish is in flight.
Their lines count bonuses paid twice and studies left recruiting for cancelled jobs (goal: 0 and 0).

Needs PostgreSQL (found as `bench load` finds it: DATABASE_URL when it names PostgreSQL, else the
local server) and the `redis-server` binary; the child runs on a scratch database beside it, dropped
afterwards.
"""

from __future__ import annotations

import shutil

from bench._child import ChildError, run_child
from rigs import serving
from rigs.databases import scratch_database

PAYMENTS = 200
JOBS = 30  # jobs cancelled while their publish is in flight, 10 at each moment
TIMEOUT = 300  # seconds: the bound on each wait of a scenario

CHILD = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from rigs.market_faults import cancel_in_flight, mturk_outage
print(mturk_outage({payments}).line(), flush=True)
print(cancel_in_flight({jobs}).line(), flush=True)
from rigs.fault_rig import SCENARIOS, run_scenario
for name in SCENARIOS:
    print(run_scenario(name, {payments}, timeout={timeout}).line(), flush=True)
"""


def missing(database_url: str, redis_url: str) -> str:
    if problem := serving.unreachable(database_url, redis_url):
        return f"needs PostgreSQL (a database session is one of the faults) and Redis: {problem}"
    if shutil.which("redis-server") is None:
        return "needs the redis-server binary (each scenario starts and restarts its own)"
    return ""


def main() -> None:
    database_url, redis_url = serving.service_urls()
    if reason := missing(database_url, redis_url):
        print(f"faults skipped: {reason}", flush=True)
        return
    with scratch_database("faults", database_url) as url:
        try:
            lines = run_child(CHILD.format(payments=PAYMENTS, jobs=JOBS, timeout=TIMEOUT), database_url=url)
        except ChildError as error:
            lines = [f"failed: {error}"]
    for line in lines:
        print(f"faults {line}", flush=True)
