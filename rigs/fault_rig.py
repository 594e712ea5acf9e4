"""A rig for fault tests on the money path: a real Celery worker process, its own Redis, a fake Prolific.

Why these three pieces, and why this shape:

- The worker is a separate OS process (`celery -A config worker`, solo pool, its own session), so it
  can really be SIGKILLed and restarted. The solo pool runs one task at a time: when the fault lands,
  exactly one payment is in flight, at the point the market chose, so each run is reproducible.
- Its broker is a throwaway `redis-server` on a free loopback port, without persistence, owned by the
  rig: it can be restarted (losing every queued message, the worst case) without touching the
  Redis other people use. Because the server is ours, the worker consumes the default queue and the
  sweeper's own `.delay()` calls reach it, as in production.
- The market is the platform's fake Prolific (annotation/markets/prolific/fake.py), served on a
  loopback port (fake_server.py) and held to Prolific's published schema; the worker's real Prolific
  client reaches it through PROLIFIC_API_URL. Prolific's pay call is not idempotent, so a resend after
  a fault would really pay twice: the market lands every payment on its submission, and the tally
  reads those, not the ledger's opinion of them. A request off the schema fails the scenario.
- The market holds one answer (`hold`) after doing the work, so the fault lands at a chosen moment.

Each scenario below (`SCENARIOS`) pays N bonuses, holds one call, injects its fault, and settles;
the tests run them with a few payments, `python -m bench faults` with 200.

The test process plays beat: every second it sends `annotation.sweep_ledger`, which re-queues stale
rows and resolves unclear ones by reading the market (LEDGER_STALE_SECONDS is short in the worker).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from celery import Celery
from django.db import connection
from django.utils import timezone

from annotation.ledger import intents
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.fake_server import FakeProlificServer
from annotation.models import Assignment, AssignmentState, Hit, Job, Worker
from rigs.fault_processes import WAIT, RedisServer, RigError, WorkerProcess

STUDY = "study-faults"
BONUS = Decimal("0.25")
STALE_SECONDS = 2  # the worker's LEDGER_STALE_SECONDS: far above a normal call, far below a test
SWEEP_EVERY = 1.0  # seconds between the sweeps the test sends, as beat would
WORKER_APP_NAME = "stancework-fault-worker"  # the worker's PostgreSQL application_name
# The market calls a fault can wait for: the pay call (the money has moved), or the read of a
# submission not paid yet (the engine's check while it holds the claimed bonus row, before setting it up).
HOLDS = {"pay": ("pay-bonus-payments", False), "read-before-bonus": ("get-submission", True)}


def worker_env(redis: RedisServer, market: FakeProlificServer, var_dir: Path) -> dict[str, str]:
    """The worker's environment: this process's database, the rig's Redis and market."""
    if connection.vendor != "postgresql":
        raise RigError("the fault rig shares its database with a worker process: it needs PostgreSQL")
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    database_url = (
        f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}?application_name={WORKER_APP_NAME}"
    )
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis.url,
        "PROLIFIC_API_URL": market.url,
        "PROLIFIC_API_TOKEN": "fault-rig",
        "PROLIFIC_PROJECT_ID": FakeProlific.PROJECT,  # its workspace's currency is read before each payment
        "LEDGER_STALE_SECONDS": str(STALE_SECONDS),
        "STANCEWORK_VAR_DIR": str(var_dir),
        "DB_CONN_MAX_AGE": "60",  # persistent sessions, as deployed: the drop hits one in use
    }


def drop_worker_connections() -> int:
    """Terminate the worker's PostgreSQL sessions (ours alone, by application_name); how many."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s AND pid <> pg_backend_pid()",
            [WORKER_APP_NAME],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


# -- payments and their tally --------------------------------------------------------------------


def make_bonuses(count: int, market: FakeProlific) -> list[LedgerEntry]:
    """`count` approved Prolific submissions (ours and the market's), each with one bonus row to pay."""
    job = Job.objects.create(
        task_type="stance", market="prolific", currency="GBP", reward=Decimal("1.50"), params={}
    )
    hit = Hit.objects.create(
        job=job, position=0, assignments_wanted=count, reward=Decimal("1.50"), external_id=STUDY
    )
    tag = uuid.uuid4().hex[:8]
    workers = Worker.objects.bulk_create(
        Worker(market="prolific", external_id=f"pid-{tag}-{n}") for n in range(count)
    )
    assignments = Assignment.objects.bulk_create(
        Assignment(
            job=job,
            hit=hit,
            worker=worker,
            state=AssignmentState.APPROVED,
            external_id=f"sub-{tag}-{n}",
            accepted_at=timezone.now(),
        )
        for n, worker in enumerate(workers)
    )
    for assignment, worker in zip(assignments, workers, strict=True):
        assignment.job, assignment.hit = job, hit
        market.submit(STUDY, assignment.external_id, worker.external_id, status="APPROVED")
    return [intents.bonus_intent(a, BONUS, "fault rig", "rule:faults") for a in assignments]


@dataclass(frozen=True)
class Tally:
    """What became of each payment, read from the market's counts and the ledger's rows."""

    requested: int
    confirmed: int  # paid once at the market, and the ledger says so
    failed: int  # not paid, and the ledger's row says why
    lost: int  # not paid though the ledger does not say it failed, or paid without its knowing
    paid_twice: int  # the market paid the submission more than once
    open_rows: int  # ledger rows not confirmed or failed
    unexplained_failures: int  # failed rows without a reason

    @property
    def settled(self) -> bool:
        return self.open_rows == 0 and self.confirmed + self.failed + self.paid_twice == self.requested


def tally(bonuses: list[LedgerEntry], market: FakeProlific) -> Tally:
    refs = [bonus.market_ref for bonus in bonuses]
    job_id = bonuses[0].job_id
    assert job_id is not None, "make_bonuses gives every bonus its job"
    rows = list(LedgerEntry.objects.filter(job_id=job_id))
    confirmed_pay = {r.params.get("submission_id") for r in rows if _is(r, RowKind.PAY, RowState.CONFIRMED)}
    latest: dict[str, LedgerEntry] = {}
    for row in sorted(rows, key=lambda r: (r.kind, r.attempt)):
        latest[row.market_ref if row.kind == RowKind.BONUS else row.params.get("submission_id", "")] = row
    counts = Counter[str]()
    for ref in refs:
        paid = market.paid(ref)
        if paid > 1:
            counts["paid_twice"] += 1
        elif paid == 1 and ref in confirmed_pay:
            counts["confirmed"] += 1
        elif paid == 0 and latest.get(ref) is not None and latest[ref].state == RowState.FAILED:
            counts["failed"] += 1
        else:
            counts["lost"] += 1
    return Tally(
        requested=len(refs),
        confirmed=counts["confirmed"],
        failed=counts["failed"],
        lost=counts["lost"],
        paid_twice=counts["paid_twice"],
        open_rows=sum(1 for r in rows if r.state not in RowState.final()),
        unexplained_failures=sum(1 for r in rows if r.state == RowState.FAILED and not r.error),
    )


def _is(row: LedgerEntry, kind: str, state: str) -> bool:
    return row.kind == kind and row.state == state


# -- driving a scenario --------------------------------------------------------------------------


class Rig:
    """Everything a scenario needs, started together and always stopped together."""

    def __init__(self, workdir: Path, timeout: float = WAIT) -> None:
        self.workdir = workdir
        self.timeout = timeout  # the bound on each wait of a scenario
        self.bonuses: list[LedgerEntry] = []
        self.redis = RedisServer(workdir)
        self.server = FakeProlificServer()
        self.market = self.server.market
        self.worker = WorkerProcess({}, workdir / "worker.log")
        self.spares: list[WorkerProcess] = []
        self.producer: Celery | None = None

    def start(self) -> None:
        self.redis.start()
        self.server.__enter__()
        self.worker.env = worker_env(self.redis, self.server, self.workdir)
        self.worker.start()
        self.producer = Celery("fault-rig", broker=self.redis.url, set_as_current=False)

    def add_worker(self) -> WorkerProcess:
        """A second worker on the same broker, database and market (a replacement, a scale-out)."""
        spare = WorkerProcess(self.worker.env, self.workdir / f"worker-{len(self.spares) + 2}.log")
        self.spares.append(spare)
        spare.start()
        return spare

    def close(self) -> None:
        for worker in [self.worker, *self.spares]:
            worker.kill()
        self.server.__exit__()
        if self.producer is not None:
            self.producer.close()
        self.redis.stop()

    def send(self, task: str, *args: Any) -> None:
        assert self.producer is not None
        self.producer.send_task(task, args=args)

    def hold(self, nth: int, call: str) -> None:
        """Hold the market's answer to the `nth` call of this kind ("pay", "read-before-bonus")."""
        operation, unpaid = HOLDS[call]
        self.market.hold(nth, operation, unpaid=unpaid)

    def pay(self, count: int) -> None:
        """`count` bonuses recorded and queued for the worker, as the sweeper would."""
        self.bonuses = make_bonuses(count, self.market)
        for bonus in self.bonuses:
            self.send("annotation.execute_ledger_entry", bonus.pk)

    def reconnect_producer(self) -> None:
        """After a Redis restart the old producer's pooled connections are dead: start afresh."""
        if self.producer is not None:
            self.producer.close()
        self.producer = Celery("fault-rig", broker=self.redis.url, set_as_current=False)

    def settle(self) -> Tally:
        """Sweep every second, as beat would, until every payment is decided; the final tally."""
        deadline = time.monotonic() + self.timeout
        while True:
            if self.server.refused:
                raise RigError(f"requests off Prolific's schema: {self.server.refused}")
            current = tally(self.bonuses, self.market)
            if current.settled or time.monotonic() > deadline:
                return current
            self.send("annotation.sweep_ledger")
            time.sleep(SWEEP_EVERY)


@contextlib.contextmanager
def rig(timeout: float = WAIT) -> Iterator[Rig]:
    with tempfile.TemporaryDirectory(prefix="stancework-faults-") as tmp:
        started = Rig(Path(tmp), timeout)
        try:
            started.start()
            yield started
        finally:
            started.close()


# -- the scenarios -------------------------------------------------------------------------------
# Each injects its fault while the market holds one answer, releases it, and returns what it did.


def kill_worker(faults: Rig) -> str:
    """SIGKILL the worker while the market holds the answer to a pay call it made, then restart it."""
    faults.worker.kill()
    faults.market.release.set()
    faults.worker.start()
    return "worker SIGKILLed after the market paid, then restarted"


def restart_redis(faults: Rig) -> str:
    """Restart the broker (no persistence: every queued payment task is lost) while a pay call is held."""
    queued = faults.redis.queued()
    faults.redis.restart()
    faults.market.release.set()
    faults.reconnect_producer()
    return f"{queued} queued tasks lost with the broker"


def drop_database(faults: Rig) -> str:
    """Terminate the worker's database sessions while the market holds its pay call's answer."""
    dropped = drop_worker_connections()
    faults.market.release.set()  # the worker hears "paid", then cannot write it down
    return f"{dropped} worker database session(s) terminated after the market paid"


def freeze_worker(faults: Rig) -> str:
    """SIGSTOP the worker while it holds a claimed bonus row (its read answered, the set-up and pay
    calls not made); past the stale limit the sweeper hands the row to a replacement, which sets it
    up and pays; the frozen worker wakes, has lost its claim, and must call nothing."""
    faults.worker.freeze()
    faults.market.release.set()
    faults.add_worker()
    faults.settle()
    faults.worker.thaw()
    faults.worker.stop()  # a warm shutdown lets the woken worker finish what it held first
    return f"worker frozen past the {STALE_SECONDS} s stale limit, replaced, then woken"


@dataclass(frozen=True)
class Scenario:
    inject: Callable[[Rig], str]
    hold: str  # which market call the fault waits for: "pay" or "read-before-bonus"


SCENARIOS: dict[str, Scenario] = {
    "kill_worker": Scenario(kill_worker, "pay"),
    "restart_redis": Scenario(restart_redis, "pay"),
    "drop_database": Scenario(drop_database, "pay"),
    "freeze_worker": Scenario(freeze_worker, "read-before-bonus"),
}


@dataclass(frozen=True)
class Outcome:
    name: str
    tally: Tally
    settle_seconds: float  # from the fault until every payment was decided
    note: str

    def line(self) -> str:
        t = self.tally
        return (
            f"{self.name}: requested={t.requested} confirmed={t.confirmed} failed={t.failed} "
            f"lost={t.lost} paid_twice={t.paid_twice} open_rows={t.open_rows} "
            f"settled_in={self.settle_seconds:.1f}s ({self.note})"
        )


def run_scenario(name: str, payments: int, timeout: float = WAIT) -> Outcome:
    """Pay `payments` bonuses, inject the named fault half-way, settle, and count."""
    scenario = SCENARIOS[name]
    with rig(timeout) as faults:
        faults.hold(max(1, payments // 2), scenario.hold)
        faults.pay(payments)
        if not faults.market.held.wait(timeout):
            raise RigError(f"the market never saw the call to hold:\n{faults.worker.tail()}")
        started = time.monotonic()
        note = scenario.inject(faults)
        result = faults.settle()
        return Outcome(name, result, time.monotonic() - started, note)
