"""No code path calls a paying market API without a committed ledger row (issue 6, "done when").

Every flow runs against fake markets whose guard fails any call that creates work or pays unless
its ledger row is already committed in state `sent`, with no transaction open around the call:
publish (from the admin), worker pages, sync, approve, reject (from the admin), bonus (from the
admin and the service), extend, expire, reconcile, the sweeper and the Celery task, on both markets.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.utils import timezone

from annotation.ledger import intents
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.ledger.reconcile import reconcile_job
from annotation.ledger.tasks import execute_ledger_entry_task, sweep_ledger_task
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, AssignmentState, Job
from annotation.work.jobs import create_job, sync_job
from annotation.work.market import bonus_assignment, expire_job, extend_job
from annotation.work.records import review_assignment
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk, GuardedProlific
from tests.annotation.market_clients import market_clients
from tests.annotation.paid_jobs import REASON, mturk_worker_done, prolific_participant_done

pytestmark = pytest.mark.django_db(transaction=True)
JOBS, ASSIGNMENTS = "/admin/annotation/job/", "/admin/annotation/assignment/"


@pytest.fixture
def guard(settings: Any) -> Guard:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT
    settings.PROLIFIC_WORKSPACE_ID = FakeProlific.WORKSPACE
    return Guard()


@pytest.fixture
def mturk(guard: Guard) -> Iterator[GuardedMTurk]:
    market = GuardedMTurk(guard)
    with market_clients(mturk=market.client(attempts=1)):
        yield market


@pytest.fixture
def prolific(guard: Guard) -> Iterator[FakeProlific]:
    market = GuardedProlific(guard)
    with market_clients(prolific=market.client(attempts=1)):
        yield market


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("admin", "admin@example.com", "pw"))
    return client


def admin_action(client: Client, url: str, action: str, pks: list[int], **data: Any) -> None:
    client.post(url, {"action": action, "_selected_action": pks, **data})


def reject_and_bonus_in_the_admin(staff: Client, *, rejected: Assignment, bonused: Assignment) -> None:
    """Staff reject one piece of work and pay another a gold bonus of 0.50, through the admin's actions."""
    admin_action(staff, ASSIGNMENTS, "reject_work", [rejected.pk], confirm="Reject", feedback=REASON)
    bonus = {"amount": "0.50", "reason": "Gold right", "batch": "gold"}
    admin_action(staff, ASSIGNMENTS, "bonus_work", [bonused.pk], confirm="Pay", **bonus)


def run_the_ledger_machinery(assignment: Assignment) -> None:
    """A stale claimed bonus row requeued by the sweeper, and one sent through delay_on_commit."""
    stale = intents.bonus_intent(assignment, Decimal("0.10"), "Swept", "batch:swept")
    long_ago = timezone.now() - dt.timedelta(hours=1)
    LedgerEntry.objects.filter(pk=stale.pk).update(state=RowState.CLAIMED, claimed_at=long_ago)
    sweep_ledger_task()
    with transaction.atomic():
        queued = intents.bonus_intent(assignment, Decimal("0.10"), "Queued", "batch:queued")
        execute_ledger_entry_task.delay_on_commit(queued.pk)  # runs once the transaction has committed


def test_every_mturk_flow_pays_only_through_committed_ledger_rows(
    guard: Guard, mturk: GuardedMTurk, staff: Client
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="mturk", params={"bonus_cap": "2.00"}, budget=Decimal("50"))
    admin_action(staff, JOBS, "publish_on_market", [job.pk], confirm="Publish")
    hit_id = Job.objects.get(pk=job.pk).hits.get().external_id
    done = [mturk_worker_done(mturk, job, hit_id, n) for n in range(2)]
    sync_job(job.pk)
    review_assignment(done[0].pk, approve=True, feedback="Thanks")
    reject_and_bonus_in_the_admin(staff, rejected=done[1], bonused=done[0])
    bonus_assignment(done[0].pk, Decimal("0.25"), "Fast", "fast")
    extend_job(job.pk, 1)
    expire_job(job.pk)
    run_the_ledger_machinery(done[0])
    reconcile_job(job.pk)

    assert guard.violations == []
    assert set(guard.paying) == {f"mturk {op}" for op in GuardedMTurk.PAYING}
    assert [a["AssignmentStatus"] for a in mturk.assignments.values()] == ["Approved", "Rejected"]
    assert sorted(b["BonusAmount"] for b in mturk.bonuses) == ["0.10", "0.10", "0.25", "0.50"]
    assert not LedgerEntry.objects.exclude(state=RowState.CONFIRMED).exists()


def test_every_prolific_flow_pays_only_through_committed_ledger_rows(
    guard: Guard, prolific: FakeProlific, staff: Client
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "2.00"})
    admin_action(staff, JOBS, "publish_on_market", [job.pk], confirm="Publish")
    study_id = Job.objects.get(pk=job.pk).hits.get().external_id
    done = [prolific_participant_done(prolific, job, study_id, n) for n in range(2)]
    sync_job(job.pk)
    review_assignment(done[0].pk, approve=True)
    reject_and_bonus_in_the_admin(staff, rejected=done[1], bonused=done[0])
    extend_job(job.pk, 1)
    expire_job(job.pk)
    run_the_ledger_machinery(done[0])
    reconcile_job(job.pk)

    assert guard.violations == []
    assert set(guard.paying) == {
        f"prolific {what}"
        for what in (
            "create study",
            "publish study",
            "approve submission",
            "reject submission",
            "set up bonus",
            "pay bonus",
            "add places",
        )
    }
    assert [s["status"] for s in prolific.submissions.values()] == ["APPROVED", "REJECTED"]
    assert prolific.submissions[done[0].external_id]["bonus_payments"] == [50, 10, 10]
    assert Assignment.objects.get(pk=done[1].pk).state == AssignmentState.REJECTED
    assert not LedgerEntry.objects.exclude(state=RowState.CONFIRMED).exists()


def test_the_guard_catches_a_paying_call_made_without_a_ledger_row(guard: Guard, mturk: GuardedMTurk) -> None:
    client = mturk.client(attempts=1)
    mturk.submit("HIT1", "ASG1", "AWORKER1")

    client.send_bonus("AWORKER1", "ASG1", Decimal("1.00"), "no row", "token-without-a-row")
    with transaction.atomic():
        client.approve("ASG1")

    assert guard.violations == [
        "mturk SendBonus called without a sent ledger row",
        "mturk ApproveAssignment called inside a transaction",
        "mturk ApproveAssignment called without a sent ledger row",
    ]
    assert RowKind.BONUS not in set(LedgerEntry.objects.values_list("kind", flat=True))
