"""Several Celery workers: 3 worker processes on Redis over PostgreSQL deliver 10k ledger payments
and a simulated pipeline run over real PERSPECTRUM claims. Every payment is delivered twice for
real: its task is queued as two messages side by side (as a broker redelivers one whose ack was
lost), so two workers usually run it at once; the workers count every payment task they begin, with
the sweeper running among them. Prints the throughput, the deliveries run, and whether each payment
reached the (fake, recording) market once and each completed job was aggregated once.

Needs PostgreSQL and Redis, found as rigs/serving.py finds them; a scratch database, dropped after.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
import redis
from django.conf import settings

from bench._fake_market_worker import CALLS_KEY, DELIVERIES_KEY
from rigs import serving
from rigs.databases import scratch_database
from rigs.processes import ProcessGroup

PYTHON = sys.executable
WORKERS = 3
ROWS = 10_000
CLAIMS = 30
WAIT_SECONDS = 900


def main(rows: int = ROWS, claims: int = CLAIMS) -> None:
    database_url, redis_url = serving.service_urls(redis_db=13)  # its own queue and list of market calls
    unreachable = serving.unreachable(database_url, redis_url)
    if unreachable:
        print(f"workers: not run: needs PostgreSQL and Redis ({unreachable})", flush=True)
        return
    broker = redis.Redis.from_url(redis_url)
    broker.flushdb()
    with tempfile.TemporaryDirectory() as tmp, scratch_database("workers", database_url) as scratch:
        env = serving.app_environment(Path(tmp), scratch, redis_url)
        group = ProcessGroup(Path(tmp), Path(settings.BASE_DIR))
        group.run("migrate", [PYTHON, "manage.py", "migrate", "--noinput", "-v0"], env, timeout=300)
        try:
            for number in range(WORKERS):
                group.start(
                    f"worker{number}", [PYTHON, "-m", "bench._fake_market_worker", f"bench{number}"], env
                )
            with psycopg.connect(scratch, autocommit=True) as db:
                print(ledger(group, env, db, broker, rows), flush=True)
                print(pipeline(group, env, db, claims), flush=True)
        finally:
            group.stop()
            broker.flushdb()


def ledger(
    group: ProcessGroup, env: dict[str, str], db: psycopg.Connection[Any], broker: redis.Redis, rows: int
) -> str:
    started = time.perf_counter()
    group.run("ledger", [PYTHON, "-m", "bench._workers_site", "ledger", str(rows)], env, timeout=WAIT_SECONDS)
    queued = time.perf_counter() - started

    def confirmed() -> bool:
        return _one(db, "SELECT count(*) FROM annotation_ledgerentry WHERE state = 'confirmed'") >= rows

    group.wait_until(confirmed, "every payment confirmed", timeout=WAIT_SECONDS)
    elapsed = time.perf_counter() - started
    time.sleep(2)  # let any late second delivery arrive: it must not call the market
    calls = [token.decode() for token in broker.lrange(CALLS_KEY, 0, -1)]  # type: ignore[union-attr]
    states = {
        state: n
        for state, n in db.execute("SELECT state, count(*) FROM annotation_ledgerentry GROUP BY state")
    }
    once = len(calls) == len(set(calls)) == rows == states.get("confirmed")
    delivered = int(broker.get(DELIVERIES_KEY) or 0)  # type: ignore[arg-type]
    twice = delivered >= 2 * rows
    return (
        f"workers ledger: {WORKERS} workers rows={rows} queued={2 * rows} (each payment's task queued as "
        f"two messages side by side) deliveries_run={delivered} queued_s={queued:.1f} "
        f"all_paid_s={elapsed:.1f} rows_per_s={rows / elapsed:.0f} market_calls={len(calls)} "
        f"distinct_tokens={len(set(calls))} states={states} "
        f"goal: every payment delivered twice: {'met' if twice else 'MISSED'}; "
        f"each paid once: {'met' if once else 'MISSED'}"
    )


def pipeline(group: ProcessGroup, env: dict[str, str], db: psycopg.Connection[Any], claims: int) -> str:
    started = time.perf_counter()
    seeded = serving.last_json(
        group.run("pipeline", [PYTHON, "-m", "bench._workers_site", "pipeline", str(claims)], env, 600)
    )
    run = seeded["run"]
    imported = time.perf_counter() - started
    last = (
        "SELECT count(*) FROM pipeline_steprun WHERE run_id = %s"
        " AND (state = 'failed' OR name = 'release' AND state = 'done')"
    )

    def finished() -> bool:
        return _one(db, last, run) > 0

    group.wait_until(finished, "the pipeline run", timeout=WAIT_SECONDS)
    elapsed = time.perf_counter() - started - imported
    rows = db.execute(
        "SELECT name, state, message FROM pipeline_steprun WHERE run_id = %s", (run,)
    ).fetchall()
    steps = {name: state for name, state, _message in rows}
    failed = [f"{name}: {message[:300]}" for name, state, message in rows if state == "failed"]
    runs = db.execute(
        "SELECT job_id, count(*) FROM aggregation_aggregationrun GROUP BY job_id ORDER BY job_id"
    ).fetchall()
    once = bool(runs) and all(count == 1 for _job, count in runs)
    done = all(state == "done" for state in steps.values())
    return (
        f"workers pipeline: {WORKERS} workers claims={seeded['claims']} import_s={imported:.1f} "
        f"run_s={elapsed:.1f} "
        f"steps_done={sum(s == 'done' for s in steps.values())}/{len(steps)} "
        f"aggregation_runs_per_job={[count for _job, count in runs]} "
        f"goal: every step done, each job aggregated once: {'met' if once and done else 'MISSED'}"
        + (f" (failed: {'; '.join(failed)})" if failed else "")
    )


def _one(db: psycopg.Connection[Any], query: str, *args: object) -> int:
    row = db.execute(query, args or None).fetchone()  # type: ignore[arg-type]
    return int(row[0]) if row else 0
