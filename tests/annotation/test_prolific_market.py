"""The Prolific market class (work and money) with the platform: project and workspace, pausing, stopping,
rejections checked before the ledger, blocking, submission statuses, and bonuses read back from the
submission. Run against FakeProlific (schema-checked, ledger-guarded) or recorded responses."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import requests
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from annotation.ledger import engine, intents
from annotation.ledger.decisions import DecisionError, decide_unclear
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.base import Control, MarketCallError
from annotation.market_interface.errors import MarketConfigError, RejectionError
from annotation.market_interface.registry import control, get_market
from annotation.markets.prolific.account import BLOCKLIST_NAME
from annotation.markets.prolific.client import ProlificClient
from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.studies import StudyTransitionError
from annotation.models import Assignment, AssignmentState, Hit, Job, JobState, Worker
from annotation.work.jobs import create_job, expire_hits, pause_job, publish_job, resume_job
from annotation.work.market import bonus_assignment, expire_job
from annotation.work.records import block_worker, review_assignment
from annotation.work.service_queue import ServiceQueue
from operations.models import Operation
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import guarded_prolific
from tests.annotation.market_clients import market_clients
from tests.annotation.recorded_prolific import STUDY, RecordedProlific

pytestmark = pytest.mark.django_db(transaction=True)
REASON = "Every gold item was answered against its known stance, and the free-text answers were empty. " * 2


@pytest.fixture
def fake(settings: Any) -> Iterator[FakeProlific]:
    with guarded_prolific(settings) as market:
        yield market


@pytest.fixture
def recorded(settings: Any) -> Iterator[RecordedProlific]:
    settings.PROLIFIC_PROJECT_ID = "62fce6fff0a78eb4f3ebc09c"  # the recorded project.json's
    settings.PROLIFIC_WORKSPACE_ID = ""
    market = RecordedProlific()
    session = requests.Session()
    session.mount("https://", market)
    with market_clients(prolific=ProlificClient("token", session=session, attempts=1)):
        yield market


def published(**params: Any) -> Job:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "5.00", **params})
    return publish_job(job.pk)


def study_of(job: Job) -> str:
    return str(job.hits.values_list("external_id", flat=True).first())


def submitted(fake: FakeProlific, job: Job, n: int = 1, state: str = AssignmentState.SUBMITTED) -> Assignment:
    """A participant's submission, known to Prolific and to us."""
    pid, session = f"{n:024x}", f"session{n:017d}"
    hit = job.hits.order_by("position").first()
    assert hit is not None
    worker, _ = Worker.objects.get_or_create(market="prolific", external_id=pid)
    fake.submit(hit.external_id, session, pid)
    return Assignment.objects.create(
        job=job, hit=hit, worker=worker, state=state, external_id=session, accepted_at=timezone.now()
    )


# -- the project and the workspace ----------------------------------------------------------------


def test_studies_are_created_in_our_project_excluding_our_blocklist_group(fake: FakeProlific) -> None:
    first, second = published(), published()

    studies = [fake.studies[study_of(job)] for job in (first, second)]
    (group,) = fake.groups.values()
    assert [s["project"] for s in studies] == [FakeProlific.PROJECT] * 2
    assert [s["filters"] for s in studies] == [
        [{"filter_id": "participant_group_blocklist", "selected_values": [group["id"]]}]
    ] * 2
    assert (group["name"], group["workspace_id"]) == (BLOCKLIST_NAME, FakeProlific.WORKSPACE)


def test_without_a_project_nothing_is_published_nor_written(fake: FakeProlific, settings: Any) -> None:
    settings.PROLIFIC_PROJECT_ID = ""
    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="prolific")

    with pytest.raises(MarketCallError, match="PROLIFIC_PROJECT_ID"):
        publish_job(job.pk)

    assert not LedgerEntry.objects.exists()
    assert fake.calls == [] and fake.studies == {}


def test_the_balance_is_read_from_the_workspace_that_owns_the_project(fake: FakeProlific) -> None:
    balance = get_market("prolific").balance()

    assert balance == Decimal("10000.00")  # 1,000,000 pence
    assert [op for op, _ in fake.calls] == ["get-project", "get-workspace-balance"]
    assert fake.calls[1][1] == f"/api/v1/workspaces/{FakeProlific.WORKSPACE}/balance/"


def test_a_configured_workspace_other_than_the_projects_is_refused(fake: FakeProlific, settings: Any) -> None:
    settings.PROLIFIC_WORKSPACE_ID = "another-workspace"

    with pytest.raises(MarketConfigError, match=f"belongs to workspace {FakeProlific.WORKSPACE}"):
        get_market("prolific").balance()


# -- pausing, resuming, stopping ------------------------------------------------------------------


def test_pausing_a_job_pauses_its_study_and_resuming_starts_it_again(fake: FakeProlific) -> None:
    job = published()
    study = fake.studies[study_of(job)]

    pause_job(job.pk)
    paused = study["status"]
    resume_job(job.pk)

    assert (paused, study["status"]) == ("PAUSED", "ACTIVE")
    assert Job.objects.get(pk=job.pk).state == JobState.COLLECTING


def test_expiring_stops_the_study_which_prolific_then_calls_completed(fake: FakeProlific) -> None:
    job = published()

    expire_job(job.pk)
    resume_job(job.pk)  # its HITs are expired: nothing to start, and nothing refused

    assert fake.studies[study_of(job)]["status"] == "COMPLETED"
    transitions = [path for op, path in fake.calls if op == "transition-study"]
    assert len(transitions) == 3  # PUBLISH, PAUSE, STOP: no START sent to a completed study


def prolific_hit() -> Hit:
    job = Job.objects.create(
        task_type="stance", market="prolific", currency="GBP", reward=Decimal("1.50"), params={}
    )
    return Hit.objects.create(
        job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"), external_id=STUDY
    )


def test_a_draft_study_is_not_sent_stop(recorded: RecordedProlific) -> None:
    recorded.add("GET", f"/api/v1/studies/{STUDY}/", (200, "study_unpublished.json"))

    control("prolific", Control.EXPIRE, prolific_hit())

    assert recorded.calls("POST", f"/api/v1/studies/{STUDY}/transition/") == 0


def test_a_study_still_publishing_cannot_be_stopped_yet_and_nothing_is_sent(
    recorded: RecordedProlific,
) -> None:
    recorded.add("GET", f"/api/v1/studies/{STUDY}/", (200, "study_publishing.json"))
    hit = prolific_hit()

    with pytest.raises(StudyTransitionError, match="the study is PUBLISHING"):
        expire_hits(hit.job)

    assert recorded.calls("POST", f"/api/v1/studies/{STUDY}/transition/") == 0
    assert Hit.objects.get(pk=hit.pk).expired is False


# -- rejections -----------------------------------------------------------------------------------


def test_a_short_rejection_is_refused_before_the_ledger_and_a_valid_one_then_reaches_prolific(
    fake: FakeProlific,
) -> None:
    job = published()
    assignment = submitted(fake, job)

    with pytest.raises(RejectionError, match="at least 100 characters"):
        review_assignment(assignment.pk, approve=False, feedback="Too fast.")
    written = LedgerEntry.objects.filter(kind=RowKind.REJECT).count()
    reviewed = review_assignment(assignment.pk, approve=False, feedback=REASON)

    assert written == 0
    assert reviewed.state == AssignmentState.REJECTED
    assert fake.rejections == {assignment.external_id: (REASON, "OTHER")}
    assert list(LedgerEntry.objects.filter(kind=RowKind.REJECT).values_list("state", flat=True)) == [
        RowState.CONFIRMED
    ]


def test_a_job_naming_an_unknown_rejection_category_writes_nothing(fake: FakeProlific) -> None:
    job = published(rejection_category="SLOPPY")
    assignment = submitted(fake, job)

    with pytest.raises(RejectionError, match="unknown Prolific rejection category 'SLOPPY'"):
        review_assignment(assignment.pk, approve=False, feedback=REASON)

    assert not LedgerEntry.objects.filter(kind=RowKind.REJECT).exists()
    assert "transition-submission" not in [op for op, _ in fake.calls]


def test_the_admin_reject_form_refuses_what_prolific_would_and_queues_nothing(fake: FakeProlific) -> None:
    assignment = submitted(fake, published())
    staff = Client()
    staff.force_login(User.objects.create_superuser("admin", "admin@example.com", "pw"))

    page = staff.post(
        "/admin/annotation/assignment/",
        {
            "action": "reject_work",
            "_selected_action": [assignment.pk],
            "confirm": "Reject",
            "feedback": "No.",
        },
    )

    assert page.status_code == 200
    assert "at least 100 characters" in page.content.decode()
    assert not Operation.objects.exists()


# -- blocking -------------------------------------------------------------------------------------


def test_blocking_a_worker_adds_them_to_the_group_every_study_excludes(fake: FakeProlific) -> None:
    job = published()
    assignment = submitted(fake, job)

    block_worker(assignment.worker_id, "copied answers across HITs")

    (group,) = fake.groups.values()
    assert group["members"] == [assignment.worker.external_id]
    assert fake.studies[study_of(job)]["filters"][0]["selected_values"] == [group["id"]]
    assert Control.BLOCK in get_market("prolific").capabilities.controls


# -- submission statuses --------------------------------------------------------------------------


def test_every_listed_submission_status_maps_to_one_of_ours(fake: FakeProlific) -> None:
    job = published()
    for n, status in enumerate(["RESERVED", "SCREENED OUT", "TIMED-OUT", "RETURNED"], start=1):
        submitted(fake, job, n)
        fake.submissions[f"session{n:017d}"]["status"] = status

    report = get_market("prolific").sync(job, ServiceQueue(job))

    assert [r.state for r in report.assignments] == [
        AssignmentState.ACCEPTED,
        AssignmentState.RETURNED,
        AssignmentState.EXPIRED,
        AssignmentState.RETURNED,
    ]


def test_partially_approved_work_can_still_earn_a_bonus(recorded: RecordedProlific) -> None:
    hit = prolific_hit()
    worker = Worker.objects.create(market="prolific", external_id="60bf9310e8dec401be6e9615")
    assignment = Assignment.objects.create(
        job=hit.job,
        hit=hit,
        worker=worker,
        state=AssignmentState.APPROVED,
        external_id="60d9aadeb86739de712faee0",
        accepted_at=timezone.now(),
    )
    recorded.add(
        "GET", f"/api/v1/submissions/{assignment.external_id}/", (200, "submission_partially_approved.json")
    )
    recorded.workspace(2)  # its currency, read before the set-up and the pay call
    recorded.add("POST", "/api/v1/submissions/bonus-payments/", (201, "bonus_created.json"))
    recorded.add(
        "POST", "/api/v1/bulk-bonus-payments/621014cb8e9e0f81e387021f/pay/", (202, "bonus_paid.json")
    )

    engine.paid(intents.bonus_intent(assignment, Decimal("0.25"), "Gold right", "rule:gold"))

    assert set(LedgerEntry.objects.values_list("state", flat=True)) == {RowState.CONFIRMED}


# -- bonuses read back from the submission --------------------------------------------------------


def pay_rows(assignment: Assignment) -> list[tuple[int, str]]:
    rows = LedgerEntry.objects.filter(kind=RowKind.PAY, assignment=assignment).order_by("pk")
    return [(row.attempt, row.state) for row in rows]


def days_later(entry: LedgerEntry) -> None:
    LedgerEntry.objects.filter(pk=entry.pk).update(sent_at=timezone.now() - dt.timedelta(days=3))


def test_a_pay_call_answered_503_stays_unclear_however_long_and_is_never_paid_again_by_a_timer(
    fake: FakeProlific,
) -> None:
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.unavailable("pay-bonus-payments")

    with pytest.raises(MarketCallError, match="unclear"):
        bonus_assignment(assignment.pk, Decimal("0.50"), "Gold right", "gold")
    pay = LedgerEntry.objects.get(kind=RowKind.PAY)
    within = engine.resolve(pay.pk).state
    days_later(pay)
    engine.resolve(pay.pk)
    engine.sweep_stale()

    assert within == RowState.UNCLEAR
    assert pay_rows(assignment) == [(1, RowState.UNCLEAR)]  # absence proves nothing: no second row
    assert fake.effects["pay-bonus"] == 0


def test_an_unclear_payment_is_decided_only_by_a_person_allowed_to_spend_money(fake: FakeProlific) -> None:
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.unavailable("pay-bonus-payments")
    with pytest.raises(MarketCallError, match="unclear"):
        bonus_assignment(assignment.pk, Decimal("0.50"), "Gold right", "gold")
    pay = LedgerEntry.objects.get(kind=RowKind.PAY)
    researcher = User.objects.create_user("res")
    approver = User.objects.create_superuser("boss", "boss@example.com", "pw")

    with pytest.raises(DecisionError, match="spend_money"):
        decide_unclear(pay.pk, moved=False, user=researcher, evidence="no bonus on the submission")
    decided = decide_unclear(pay.pk, moved=False, user=approver, evidence="no bonus on the submission")

    assert decided.state == RowState.FAILED
    assert "decided by boss" in decided.response_excerpt and "no bonus on the submission" in decided.error
    assert fake.effects["pay-bonus"] == 0


def test_a_bonus_landing_minutes_later_is_confirmed_by_reading_and_never_paid_again(
    fake: FakeProlific,
) -> None:
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.settle_later = True
    fake.lose_reply("pay-bonus-payments")

    with pytest.raises(MarketCallError, match="unclear"):
        bonus_assignment(assignment.pk, Decimal("0.25"), "Fast and right", "fast")
    pay = LedgerEntry.objects.get(kind=RowKind.PAY)
    before_landing = engine.resolve(pay.pk).state
    fake.settle()
    after_landing = engine.resolve(pay.pk).state

    assert (before_landing, after_landing) == (RowState.UNCLEAR, RowState.CONFIRMED)
    assert fake.submissions[assignment.external_id]["bonus_payments"] == [25]
    assert [op for op, _ in fake.calls].count("pay-bonus-payments") == 1


def test_a_payment_is_matched_by_amount_and_time_not_by_its_place_in_the_list(fake: FakeProlific) -> None:
    """An earlier confirmed bonus of the same amount, landing late, is not taken for an unpaid one."""
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.settle_later = True
    bonus_assignment(assignment.pk, Decimal("0.25"), "First batch", "first")  # paid, not landed yet
    fake.unavailable("pay-bonus-payments")
    with pytest.raises(MarketCallError, match="unclear"):
        bonus_assignment(assignment.pk, Decimal("0.25"), "Second batch", "second")  # never paid
    second = LedgerEntry.objects.get(kind=RowKind.PAY, state=RowState.UNCLEAR)
    fake.settle()  # the first bonus lands: [25]

    days_later(second)
    engine.resolve(second.pk)

    assert pay_rows(assignment) == [(1, RowState.CONFIRMED), (1, RowState.UNCLEAR)]
    assert fake.submissions[assignment.external_id]["bonus_payments"] == [25]
