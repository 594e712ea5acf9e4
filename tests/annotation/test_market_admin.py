"""Admin actions on markets: the cost is shown on a confirmation page before anything is spent."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from django.contrib.auth.models import User
from django.test import Client, TestCase
from django.utils import timezone

from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.markets.mturk.client import MTurkClient
from annotation.models import Assignment, AssignmentState, Hit, Job, JobState, Worker
from annotation.work.cost_checks import estimate_cost
from annotation.work.jobs import create_job, publish_job
from operations.models import Operation
from tests.annotation.factories import make_corpus
from tests.annotation.market_clients import market_clients

pytestmark = pytest.mark.django_db
JOBS = "/admin/annotation/job/"
ASSIGNMENTS = "/admin/annotation/assignment/"
ASG = "3PWWM24LHSX369EBUXKO681UQPO82A"
WORKER = "A2Z8QB6XQFTQ1D"


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("admin", "admin@example.com", "pw"))
    return client


@pytest.fixture
def stub() -> Iterator[Stubber]:
    boto = boto3.client("mturk", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")
    with Stubber(boto) as stubber, market_clients(mturk=MTurkClient(client=boto, attempts=1)):
        yield stubber
        stubber.assert_no_pending_responses()


def act(client: Client, url: str, action: str, pks: list[int], **data: Any) -> Any:
    """Post an admin action. An operation it starts runs as a worker would, once the request has
    committed; then the page returned is the operation's, where staff follow what happened."""
    before = set(Operation.objects.values_list("pk", flat=True))
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(url, {"action": action, "_selected_action": pks, **data}, follow=True)
    started = Operation.objects.exclude(pk__in=before).first()
    if started is None:
        return response
    assert b"follow its progress" in response.content
    return client.get(f"/admin/operations/operation/{started.pk}/change/")


def inhouse_job(budget: str | None = None) -> Job:
    make_corpus(claims=2, perspectives=2)
    return create_job("stance", {}, budget=Decimal(budget) if budget else None)


def test_publishing_shows_the_worst_case_first_and_publishes_only_on_confirm(staff: Client) -> None:
    job = inhouse_job(budget="100")
    cost = estimate_cost(job).worst_case

    page = act(staff, JOBS, "publish_on_market", [job.pk])
    assert Job.objects.get(pk=job.pk).state == JobState.DRAFT
    done = act(staff, JOBS, "publish_on_market", [job.pk], confirm="Publish")

    assert b"Publish these jobs?" in page.content and str(cost).encode() in page.content
    assert Job.objects.get(pk=job.pk).state == JobState.PUBLISHED
    assert b"now published" in done.content


def test_an_mturk_job_over_its_balance_is_shown_refused_and_never_published(
    staff: Client, stub: Stubber
) -> None:
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"))
    Hit.objects.create(job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"))
    stub.add_response("get_account_balance", {"AvailableBalance": "1.00"})
    stub.add_response("get_account_balance", {"AvailableBalance": "1.00"})

    unread = act(staff, JOBS, "publish_on_market", [job.pk])  # no market call: the cost computed here
    act(staff, JOBS, "publish_on_market", [job.pk], read_market="Read")  # the balance, read in the background
    page = staff.post(JOBS, {"action": "publish_on_market", "_selected_action": [job.pk]})
    done = act(staff, JOBS, "publish_on_market", [job.pk], confirm="Publish")

    assert b"5.40" in unread.content and b"never read" in unread.content  # 1.50 × 3 × 1.2
    assert b"5.40 exceeds the market balance 1.00" in page.content
    assert b"exceeds the market balance" in done.content
    assert Job.objects.get(pk=job.pk).state == JobState.DRAFT
    assert not LedgerEntry.objects.exists()


def test_extending_acts_only_on_the_count_whose_cost_was_shown(staff: Client) -> None:
    job = publish_job(inhouse_job().pk)
    wanted = list(job.hits.values_list("assignments_wanted", flat=True))

    changed = act(staff, JOBS, "extend_on_market", [job.pk], count=2, shown=1, confirm="x")
    assert list(job.hits.values_list("assignments_wanted", flat=True)) == wanted
    act(staff, JOBS, "extend_on_market", [job.pk], count=2, shown=2, confirm="x")

    assert b"Extend these jobs by 2" in changed.content
    assert list(job.hits.values_list("assignments_wanted", flat=True)) == [n + 2 for n in wanted]


def test_expiring_stops_offering_the_hits_and_pauses_the_job(staff: Client) -> None:
    job = publish_job(inhouse_job().pk)

    page = act(staff, JOBS, "expire_on_market", [job.pk])
    assert not job.hits.filter(expired=True).exists()
    act(staff, JOBS, "expire_on_market", [job.pk], confirm="Expire")

    assert b"Expire these jobs" in page.content
    assert Job.objects.get(pk=job.pk).state == JobState.PAUSED
    assert not job.hits.filter(expired=False).exists()


def mturk_assignment(bonus_cap: str) -> Assignment:
    job = Job.objects.create(
        task_type="stance",
        market="mturk",
        reward=Decimal("1.50"),
        state=JobState.COLLECTING,
        params={"bonus_cap": bonus_cap},
    )
    hit = Hit.objects.create(
        job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"), external_id="H"
    )
    worker = Worker.objects.create(market="mturk", external_id=WORKER)
    return Assignment.objects.create(
        job=job,
        hit=hit,
        worker=worker,
        state=AssignmentState.SUBMITTED,
        external_id=ASG,
        accepted_at=timezone.now(),
    )


def test_a_bulk_bonus_asks_first_then_pays_through_the_ledger_within_the_cap(
    staff: Client, stub: Stubber
) -> None:
    assignment = mturk_assignment(bonus_cap="0.50")
    form = {"amount": "0.50", "reason": "All gold right", "batch": "gold-1"}
    status = {"AssignmentId": ASG, "WorkerId": WORKER, "HITId": "H", "AssignmentStatus": "Submitted"}
    stub.add_response("get_assignment", {"Assignment": status})
    stub.add_response(
        "send_bonus",
        {},
        {
            "WorkerId": WORKER,
            "AssignmentId": ASG,
            "BonusAmount": "0.50",
            "Reason": "All gold right",
            "UniqueRequestToken": ANY,
        },
    )

    asked = act(staff, ASSIGNMENTS, "bonus_work", [assignment.pk])
    paid = act(staff, ASSIGNMENTS, "bonus_work", [assignment.pk], confirm="Pay", **form)
    over = act(
        staff, ASSIGNMENTS, "bonus_work", [assignment.pk], confirm="Pay", **{**form, "batch": "gold-2"}
    )

    assert b"Pay a bonus for this work?" in asked.content
    assert b"confirmed" in paid.content
    assert b"over its bonus_cap 0.50" in over.content
    entry = LedgerEntry.objects.get()
    assert (entry.kind, entry.state, entry.amount) == (
        RowKind.BONUS,
        RowState.CONFIRMED,
        Decimal("0.50"),
    )


def test_rejecting_in_bulk_asks_for_the_feedback_the_worker_reads(staff: Client, stub: Stubber) -> None:
    assignment = mturk_assignment(bonus_cap="0")
    status = {"AssignmentId": ASG, "WorkerId": WORKER, "HITId": "H", "AssignmentStatus": "Submitted"}
    stub.add_response("get_assignment", {"Assignment": status})
    stub.add_response(
        "reject_assignment", {}, {"AssignmentId": ASG, "RequesterFeedback": "Failed the checks."}
    )

    asked = act(staff, ASSIGNMENTS, "reject_work", [assignment.pk])
    act(staff, ASSIGNMENTS, "reject_work", [assignment.pk], confirm="Reject", feedback="Failed the checks.")

    assert b"Reject this work?" in asked.content and b'name="feedback"' in asked.content
    assert Assignment.objects.get(pk=assignment.pk).state == AssignmentState.REJECTED
    assert LedgerEntry.objects.get().kind == RowKind.REJECT


def test_the_ledger_and_reconciliation_views_are_reachable_from_the_admin_index(staff: Client) -> None:
    index = staff.get("/admin/")

    assert b'href="/admin/annotation/ledgerentry/"' in index.content
    assert b'href="/admin/annotation/reconciliationissue/"' in index.content
