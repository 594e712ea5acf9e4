"""Faults that markets make by themselves, in this process against the platform's fakes (which behave
as each market documents): an MTurk outage longer than a UniqueRequestToken's 24 hours while bonuses
are paid, and jobs cancelled while their Prolific publish is in flight.

Simulated time: the fake MTurk's clock is moved on (`FakeMTurk.advance`) and the ledger's rows are
dated back by as much, as if the hours had passed. What is counted is read from the markets, not from
the ledger's opinion: bonuses granted per assignment, studies still recruiting per cancelled job.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import F
from django.test import override_settings
from django.utils import timezone

from annotation.ledger import engine, intents
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.markets.mturk.fake import FakeMTurk
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, AssignmentState, Hit, Job, JobState, Worker
from annotation.work.jobs import cancel_job, publish_job
from annotation.work.syncing import sync_live_jobs

OUTAGE_HOURS = 25  # longer than MTurk honours a UniqueRequestToken (24 hours)
BONUS = Decimal("0.25")
LIVE = ("PUBLISHING", "ACTIVE", "PAUSED")
_clients: dict[str, Any] = {}


def installed_mturk() -> Any:
    return _clients["mturk"]


def installed_prolific() -> Any:
    return _clients["prolific"]


@contextlib.contextmanager
def markets(**clients: Any) -> Iterator[None]:
    """The platform uses these clients (as MARKET_CLIENTS chooses a fake) inside the block."""
    _clients.update(clients)
    chosen = {name: f"{__name__}.installed_{name}" for name in clients}
    try:
        with override_settings(MARKET_CLIENTS=chosen):
            yield
    finally:
        _clients.clear()


def settle(rounds: int = 5) -> None:
    """What beat and the workers do, a few times over: sweep, execute what is requested, read the rest."""
    later = timezone.now() + dt.timedelta(hours=1)
    for _ in range(rounds):
        report = engine.sweep_stale(now=later)
        for entry_id in report.requeued:
            engine.execute(entry_id)
        for entry_id in report.unclear:
            engine.resolve(entry_id)


# -- an MTurk outage of 25 simulated hours during the bonuses ------------------------------------


def mturk_assignments(count: int, market: FakeMTurk) -> list[Assignment]:
    tag = uuid.uuid4().hex[:8]
    job = Job.objects.create(
        task_type="stance",
        market="mturk",
        currency="USD",
        reward=Decimal("0.50"),
        params={"bonus_cap": "999"},
    )
    made = []
    for n in range(count):
        hit = Hit.objects.create(
            job=job, position=n, assignments_wanted=1, reward=Decimal("0.50"), external_id=f"HIT{tag}{n:019d}"
        )
        worker = Worker.objects.create(market="mturk", external_id=f"AW{tag}{n}")
        market.submit(hit.external_id, f"ASG{tag}{n}", worker.external_id, status="Approved")
        made.append(
            Assignment.objects.create(
                job=job,
                hit=hit,
                worker=worker,
                state=AssignmentState.APPROVED,
                external_id=f"ASG{tag}{n}",
                accepted_at=timezone.now(),
            )
        )
    return made


def pass_hours(market: FakeMTurk, hours: int) -> None:
    """`hours` go by: the market's clock moves on, and every ledger row is that much older."""
    market.advance(hours)
    back = dt.timedelta(hours=hours)
    LedgerEntry.objects.update(requested_at=F("requested_at") - back, updated=F("updated") - back)
    LedgerEntry.objects.exclude(sent_at=None).update(sent_at=F("sent_at") - back)


@dataclass(frozen=True)
class OutageOutcome:
    bonuses: int
    paid_once: int
    paid_twice: int
    unpaid: int
    open_rows: int
    asked_again: int  # rows read as never paid, asked for again with a new token
    lost_replies: int

    def line(self) -> str:
        return (
            f"mturk_outage: bonuses={self.bonuses} paid_once={self.paid_once} paid_twice={self.paid_twice} "
            f"unpaid={self.unpaid} open_rows={self.open_rows} asked_again={self.asked_again} "
            f"({self.lost_replies} replies lost, then MTurk down {OUTAGE_HOURS} simulated hours)"
        )


def mturk_outage(bonuses: int = 200) -> OutageOutcome:
    """Pay `bonuses`; half-way MTurk loses some replies (the bonus granted) and then goes down for 25
    simulated hours, past its tokens' lifetime; back up, the ledger settles; what never reached MTurk
    is asked for again. Counted at MTurk: each assignment's bonuses."""
    market = FakeMTurk()
    with markets(mturk=market.client(attempts=1, sleep=lambda seconds: None)):
        assignments = mturk_assignments(bonuses, market)
        rows = [intents.bonus_intent(a, BONUS, "bench: outage", "rule:outage") for a in assignments]
        lost = max(1, bonuses // 20)
        for n, row in enumerate(rows):
            if bonuses // 2 <= n < bonuses // 2 + lost:
                market.lose_reply("SendBonus")  # granted, and the answer lost on the way back
            market.down = n >= bonuses // 2 + lost
            engine.execute(row.pk)
        pass_hours(market, OUTAGE_HOURS)
        market.down = False
        settle()
        failed = [a for a in assignments if _latest(a).state == RowState.FAILED]
        for assignment in failed:
            engine.execute(intents.bonus_intent(assignment, BONUS, "bench: outage", "rule:outage").pk)
        granted = Counter(b["AssignmentId"] for b in market.bonuses)
    counts = Counter(min(granted[a.external_id], 2) for a in assignments)
    return OutageOutcome(
        bonuses=bonuses,
        paid_once=counts[1],
        paid_twice=counts[2],
        unpaid=counts[0],
        open_rows=LedgerEntry.objects.filter(state__in=RowState.open(), market="mturk").count(),
        asked_again=len(failed),
        lost_replies=lost,
    )


def _latest(assignment: Assignment) -> LedgerEntry:
    rows = LedgerEntry.objects.filter(kind=RowKind.BONUS, assignment=assignment)
    latest = rows.order_by("-attempt").first()
    assert latest is not None, "every assignment has its bonus row"
    return latest


# -- jobs cancelled while their publish is in flight ----------------------------------------------

# Where each job's publish is when staff cancel it: its create or its PUBLISH answered but the answer
# held (the work done at Prolific), or its PUBLISH turned away (429), the row left for the sweeper.
MOMENTS = ("create-held", "publish-held", "publish-throttled")


def prolific_job() -> Job:
    params = {"minutes": 10, "bonus_cap": "0"}
    job = Job.objects.create(
        task_type="stance", market="prolific", currency="GBP", reward=Decimal("1.00"), params=params
    )
    Hit.objects.create(job=job, position=0, assignments_wanted=3, reward=Decimal("1.00"))
    return job


def cancel_while_publishing(market: FakeProlific, job: Job, moment: str) -> None:
    if moment == "publish-throttled":
        market.throttle("transition-study")
        with contextlib.suppress(Exception):
            publish_job(job.pk)
        cancel_job(job.pk)
        return
    market.hold(1, "create-study" if moment == "create-held" else "transition-study")
    publishing = threading.Thread(target=_publish_in_own_session, args=(job.pk,))
    publishing.start()
    if not market.held.wait(30):
        raise RuntimeError(f"job {job.pk}: the market never saw the call to hold ({moment})")
    cancel_job(job.pk)
    market.release.set()
    publishing.join(60)


def _publish_in_own_session(job_id: int) -> None:
    try:
        with contextlib.suppress(Exception):
            publish_job(job_id)
    finally:
        connection.close()


@dataclass(frozen=True)
class CancelOutcome:
    jobs: int
    cancelled: int
    studies: int
    live_for_cancelled: int
    stopped_and_said: int

    def line(self) -> str:
        return (
            f"cancel_in_flight: jobs={self.jobs} cancelled={self.cancelled} studies={self.studies} "
            f"live_for_cancelled={self.live_for_cancelled} stopped_and_said={self.stopped_and_said} "
            f"(cancelled while the study's create or PUBLISH was in flight, or its PUBLISH was throttled)"
        )


def cancel_in_flight(jobs: int = 30) -> CancelOutcome:
    """Publish `jobs` Prolific jobs, cancelling each while its publish is in flight (MOMENTS in turn);
    then beat runs (sweeper, scheduled sync). Counted at Prolific: studies recruiting for them."""
    market = FakeProlific()
    client = market.client(attempts=1, sleep=lambda seconds: None)
    with (
        markets(prolific=client),
        override_settings(
            PROLIFIC_PROJECT_ID=FakeProlific.PROJECT, MARKET_PUBLIC_URL="https://bench.example"
        ),
    ):
        made = [prolific_job() for _ in range(jobs)]
        for n, job in enumerate(made):
            cancel_while_publishing(market, job, MOMENTS[n % len(MOMENTS)])
        settle()
        sync_live_jobs()
        statuses = {study_id: client.get_study(study_id).status for study_id in market.studies}
    by_job = {job.pk: job for job in Job.objects.filter(pk__in=[j.pk for j in made])}
    live = [
        study
        for study in market.studies.values()
        if statuses[study["id"]] in LIVE and _job_of(study, by_job).state == JobState.CANCELLED
    ]
    return CancelOutcome(
        jobs=jobs,
        cancelled=sum(1 for job in by_job.values() if job.state == JobState.CANCELLED),
        studies=len(market.studies),
        live_for_cancelled=len(live),
        stopped_and_said=sum(1 for job in by_job.values() if "stopped at the market" in job.market_note),
    )


def _job_of(study: dict[str, Any], jobs: dict[int, Job]) -> Job:
    return jobs[int(study["internal_name"].split()[2])]
