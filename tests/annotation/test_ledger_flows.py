"""Whole money flows: Prolific's two-call bonus, an MTurk job end to end, and reconciliation."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import requests
from botocore.stub import ANY, Stubber
from django.utils import timezone

from annotation.ledger import engine, intents
from annotation.ledger.models import IssueKind, LedgerEntry, ReconciliationIssue, RowKind, RowState
from annotation.ledger.reconcile import reconcile_job
from annotation.markets.mturk.client import MTurkClient
from annotation.markets.prolific.client import ProlificClient
from annotation.models import Assignment, AssignmentState, Hit, Job, JobState, Worker
from annotation.work.jobs import publish_job, sync_job
from annotation.work.records import review_assignment
from tests.annotation.market_clients import market_clients
from tests.annotation.recorded_prolific import BULK, STUDY, SUBMISSION, RecordedProlific
from tests.annotation.test_ledger import ASG, HIT_ID, NOW, WORKER, expect_create_hit

PID = "60bf9310e8dec401be6e9615"
PAY_PATH = f"/api/v1/bulk-bonus-payments/{BULK}/pay/"
SUBMISSION_PATH = f"/api/v1/submissions/{SUBMISSION}/"


@pytest.fixture
def market(settings: Any) -> Iterator[RecordedProlific]:
    settings.PROLIFIC_PROJECT_ID = "62fce6fff0a78eb4f3ebc09c"  # project.json's, in a GBP workspace
    settings.PROLIFIC_WORKSPACE_ID = ""
    recorded = RecordedProlific()
    session = requests.Session()
    session.mount("https://", recorded)
    with market_clients(prolific=ProlificClient("token", session=session, sleep=lambda s: None)):
        yield recorded


def prolific_assignment() -> Assignment:
    job = Job.objects.create(
        task_type="stance", market="prolific", currency="GBP", reward=Decimal("1.50"), params={}
    )
    hit = Hit.objects.create(
        job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"), external_id=STUDY
    )
    worker = Worker.objects.create(market="prolific", external_id=PID)
    return Assignment.objects.create(
        job=job,
        hit=hit,
        worker=worker,
        state=AssignmentState.APPROVED,
        external_id=SUBMISSION,
        accepted_at=timezone.now(),
    )


@pytest.mark.django_db
def test_a_prolific_bonus_is_set_up_then_paid_once(market: RecordedProlific) -> None:
    assignment = prolific_assignment()
    market.add("GET", SUBMISSION_PATH, (200, "submission_without_bonus.json"))  # precheck: APPROVED
    market.workspace(2)  # its currency, read before the set-up and before the pay call
    market.add("POST", "/api/v1/submissions/bonus-payments/", (201, "bonus_created.json"))
    market.add("POST", PAY_PATH, (202, "bonus_paid.json"))

    engine.paid(intents.bonus_intent(assignment, Decimal("0.25"), "Gold right", "rule:gold"))

    setup, pay = LedgerEntry.objects.order_by("pk")
    assert (setup.kind, setup.state, setup.result_ref) == (RowKind.BONUS, RowState.CONFIRMED, BULK)
    # Prolific answers the setup in cents: 88 cents with fees and VAT, not 88 pounds.
    assert setup.response_excerpt.startswith("total with fees 0.88 ")
    assert (pay.kind, pay.state, pay.market_ref) == (RowKind.PAY, RowState.CONFIRMED, BULK)
    assert market.calls("POST", PAY_PATH) == 1


@pytest.mark.django_db
def test_an_unclear_prolific_pay_is_resolved_by_reading_and_never_paid_again(
    market: RecordedProlific,
) -> None:
    assignment = prolific_assignment()
    market.add("GET", SUBMISSION_PATH, (200, "submission_without_bonus.json"))
    market.workspace(2)
    market.add("POST", "/api/v1/submissions/bonus-payments/", (201, "bonus_created.json"))
    market.add("POST", PAY_PATH, requests.ReadTimeout("the reply was lost"))
    market.add("GET", SUBMISSION_PATH, (200, "submission_without_bonus.json"))  # not paid yet
    market.add("GET", SUBMISSION_PATH, (200, "submission_with_bonus.json"))  # paid, minutes later

    setup = engine.execute(intents.bonus_intent(assignment, Decimal("0.25"), "Gold right", "rule:gold").pk)
    pay = LedgerEntry.objects.get(kind=RowKind.PAY)
    swept = engine.sweep_stale(now=timezone.now() + dt.timedelta(days=1))
    again = engine.execute(pay.pk)
    still = engine.resolve(pay.pk)
    settled = engine.resolve(pay.pk)

    assert setup.state == RowState.CONFIRMED
    assert pay.state == RowState.UNCLEAR
    assert pay.pk not in swept.requeued and pay.pk in swept.unclear
    assert (again.state, still.state, settled.state) == (
        RowState.UNCLEAR,
        RowState.UNCLEAR,
        RowState.CONFIRMED,
    )
    assert market.calls("POST", PAY_PATH) == 1


@pytest.mark.django_db
def test_prolific_approval_is_refused_for_a_submission_the_market_has_not_received(
    market: RecordedProlific,
) -> None:
    assignment = prolific_assignment()
    market.add("GET", "/api/v1/submissions/60d9aadeb86739de712faee0/", (200, "submission_rejected.json"))

    entry = engine.execute(intents.review_intent(assignment, approve=True, feedback="").pk)

    assert entry.state == RowState.FAILED and "REJECTED" in entry.error
    assert market.calls("POST", f"/api/v1/submissions/{SUBMISSION}/transition/") == 0


def listed(status: str) -> dict[str, Any]:
    return {
        "Assignments": [
            {
                "AssignmentId": ASG,
                "WorkerId": WORKER,
                "HITId": HIT_ID,
                "AssignmentStatus": status,
                "SubmitTime": NOW,
            }
        ],
        "NumResults": 1,
    }


def bonuses(*amounts: str) -> dict[str, Any]:
    rows = [
        {"WorkerId": WORKER, "BonusAmount": a, "AssignmentId": ASG, "Reason": "r", "GrantTime": NOW}
        for a in amounts
    ]
    return {"BonusPayments": rows, "NumResults": len(rows)}


@pytest.mark.django_db
def test_an_mturk_job_from_publish_to_a_clean_reconciliation(
    mturk: MTurkClient, stub: Stubber, settings: Any
) -> None:
    settings.MARKET_PUBLIC_URL = "https://sw.example"
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"), budget=Decimal("20"))
    hit = Hit.objects.create(job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"))
    stub.add_response("get_account_balance", {"AvailableBalance": "10000.00"})
    stub.add_response("create_hit_type", {"HITTypeId": "TYPE1"})
    expect_create_hit(stub, hit, HIT_ID)
    publish_job(job.pk)
    # A worker does the HIT at our page and submits it (the worker pages write this row).
    worker = Worker.objects.create(market="mturk", external_id=WORKER)
    assignment = Assignment.objects.create(
        job=job,
        hit=Hit.objects.get(pk=hit.pk),
        worker=worker,
        state=AssignmentState.ACCEPTED,
        external_id=ASG,
        accepted_at=timezone.now(),
    )
    stub.add_response("list_assignments_for_hit", listed("Submitted"), {"HITId": HIT_ID, "MaxResults": 100})
    sync_job(job.pk)
    stub.add_response("get_assignment", {"Assignment": listed("Submitted")["Assignments"][0]})
    stub.add_response("approve_assignment", {}, {"AssignmentId": ASG, "RequesterFeedback": "Thanks"})
    review_assignment(assignment.pk, approve=True, feedback="Thanks")
    stub.add_response("get_assignment", {"Assignment": listed("Approved")["Assignments"][0]})
    bonus_call = {**dict.fromkeys(["WorkerId", "AssignmentId", "Reason", "UniqueRequestToken"], ANY)}
    stub.add_response("send_bonus", {}, {**bonus_call, "BonusAmount": "0.50"})
    engine.paid(intents.bonus_intent(assignment, Decimal("0.50"), "Gold right", "rule:gold"))
    stub.add_response("list_assignments_for_hit", listed("Approved"))
    stub.add_response("list_bonus_payments", bonuses("0.50"), {"HITId": HIT_ID, "MaxResults": 100})

    issues = reconcile_job(job.pk)

    assert Job.objects.get(pk=job.pk).state in (JobState.PUBLISHED, JobState.COLLECTING)
    assert Assignment.objects.get(pk=assignment.pk).state == AssignmentState.APPROVED
    assert issues == []
    assert set(LedgerEntry.objects.values_list("kind", "state")) == {
        (RowKind.CREATE_HIT, RowState.CONFIRMED),
        (RowKind.APPROVE, RowState.CONFIRMED),
        (RowKind.BONUS, RowState.CONFIRMED),
    }


@pytest.mark.django_db
def test_reconciliation_flags_every_mismatch(mturk: MTurkClient, stub: Stubber) -> None:
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"))
    hit = Hit.objects.create(
        job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"), external_id=HIT_ID
    )
    worker = Worker.objects.create(market="mturk", external_id=WORKER)
    ours = Assignment.objects.create(
        job=job,
        hit=hit,
        worker=worker,
        state=AssignmentState.APPROVED,
        external_id=ASG,
        accepted_at=timezone.now(),
    )
    approve = intents.review_intent(ours, approve=True, feedback="")
    LedgerEntry.objects.filter(pk=approve.pk).update(state=RowState.CONFIRMED)
    intents.bonus_intent(ours, Decimal("1.00"), "r", "rule:stuck")  # requested, never sent
    other = {"AssignmentId": "A" * 30, "WorkerId": "AOTHER", "HITId": HIT_ID, "AssignmentStatus": "Approved"}
    page = listed("Submitted")
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": page["Assignments"], "NextToken": "p2", "NumResults": 1},
        {"HITId": HIT_ID, "MaxResults": 100},
    )
    second = {"HITId": HIT_ID, "MaxResults": 100, "NextToken": "p2"}
    stub.add_response("list_assignments_for_hit", {"Assignments": [other], "NumResults": 1}, second)
    stub.add_response("list_bonus_payments", bonuses("0.25"))

    reconcile_job(job.pk)

    found = {(i.kind, i.ref) for i in ReconciliationIssue.objects.filter(job=job)}
    assert found == {
        (IssueKind.STATE, ASG),  # ours approved, MTurk says Submitted
        (IssueKind.APPROVAL, ASG),  # approval confirmed in the ledger, not at MTurk
        (IssueKind.STATE, "A" * 30),  # an assignment we never saw
        (IssueKind.APPROVAL, "A" * 30),  # approved at MTurk without a ledger row
        (IssueKind.BONUS, ASG),  # 0.25 paid at MTurk, none confirmed here
        (IssueKind.OPEN_ENTRY, ASG),  # the bonus row still requested
    }
