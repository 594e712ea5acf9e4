"""A market action whose reply is lost is decided by reading the market, never by sending it again.

Each case runs against FakeProlific (schema-checked, ledger-guarded), which carries the action out and
then loses its reply (a read timeout, or a 502 from a gateway): exactly one effect shows at the market.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from annotation.ledger import engine
from annotation.ledger.decisions import decide_unclear
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.base import MarketCallError
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import AssignmentState, JobState
from annotation.work.job_errors import JobStateError
from annotation.work.jobs import cancel_job, pause_job, publish_job, resume_job, sync_job
from annotation.work.market import bonus_assignment
from annotation.work.records import review_assignment
from tests.annotation.test_prolific_market import REASON, fake, published, study_of, submitted

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest

LOSSES = ["lose_reply", "fail_after"]


@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_create_makes_one_study_found_again_by_reading_the_project(
    fake: FakeProlific, loss: str
) -> None:
    getattr(fake, loss)("create-study")

    job = published()

    assert fake.effects["create-study"] == 1 and len(fake.studies) == 1
    assert fake.effects["publish-study"] == 1
    assert job.state == JobState.PUBLISHED
    assert LedgerEntry.objects.get(kind=RowKind.CREATE_HIT).state == RowState.CONFIRMED


@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_publish_is_read_as_done_and_the_job_is_published_once(fake: FakeProlific, loss: str) -> None:
    getattr(fake, loss)("transition-study")

    job = published()
    again = publish_job(job.pk)  # a second publish finds the job published: nothing more

    assert fake.effects["publish-study"] == 1 and len(fake.studies) == 1
    assert again.state == JobState.PUBLISHED
    assert LedgerEntry.objects.get(kind=RowKind.CREATE_HIT).state == RowState.CONFIRMED


def test_a_publish_whose_ledger_row_failed_reuses_the_live_study_instead_of_making_another(
    fake: FakeProlific,
) -> None:
    """The old fault: a FAILED row while the study is live; the next publish must not create a second."""
    fake.lose_reply("transition-study")
    job = published()
    LedgerEntry.objects.filter(kind=RowKind.CREATE_HIT).update(state=RowState.FAILED, result_ref="")
    job.state = JobState.DRAFT
    job.save(update_fields=["state"])
    job.hits.update(external_id="")

    publish_job(job.pk)

    assert len(fake.studies) == 1 and fake.effects["create-study"] == 1
    assert fake.effects["publish-study"] == 1


@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_pause_start_and_stop_each_act_once(fake: FakeProlific, loss: str) -> None:
    job = published()
    for act, effect in ((pause_job, "pause-study"), (resume_job, "start-study")):
        getattr(fake, loss)("transition-study")
        act(job.pk)
        assert fake.effects[effect] == 1
    getattr(fake, loss)("transition-study")
    cancel_job(job.pk)

    assert fake.effects["stop-study"] == 1
    assert fake.studies[study_of(job)]["status"] == "COMPLETED"


@pytest.mark.parametrize("approve", [True, False])
@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_review_is_read_back_from_the_submission(fake: FakeProlific, loss: str, approve: bool) -> None:
    assignment = submitted(fake, published())
    getattr(fake, loss)("transition-submission")

    reviewed = review_assignment(assignment.pk, approve=approve, feedback="" if approve else REASON)

    effect = "approve-submission" if approve else "reject-submission"
    assert fake.effects[effect] == 1
    assert reviewed.state == (AssignmentState.APPROVED if approve else AssignmentState.REJECTED)
    kind = RowKind.APPROVE if approve else RowKind.REJECT
    assert LedgerEntry.objects.get(kind=kind).state == RowState.CONFIRMED


@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_pay_reply_pays_once_and_is_confirmed_by_reading(fake: FakeProlific, loss: str) -> None:
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    getattr(fake, loss)("pay-bonus-payments")

    with pytest.raises(MarketCallError, match="unclear"):
        bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")
    pay = LedgerEntry.objects.get(kind=RowKind.PAY)
    resolved = engine.resolve(pay.pk)

    assert fake.effects["pay-bonus"] == 1
    assert resolved.state == RowState.CONFIRMED
    assert fake.submissions[assignment.external_id]["bonus_payments"] == [40]


@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_bonus_set_up_is_unclear_never_set_up_again_nor_paid(fake: FakeProlific, loss: str) -> None:
    """Prolific documents no read of a set-up bulk bonus (its API has set up and pay, nothing to list):
    a set-up whose reply is lost stays UNCLEAR. It is not sent again, by a second ask or by the
    sweeper, and nothing is paid: its id never reached us, so it cannot be paid at all."""
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    getattr(fake, loss)("create-bonus-payments")

    for _ in range(2):  # asked twice: the second ask finds the unclear row and sends nothing
        with pytest.raises(MarketCallError, match="unclear"):
            bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")
    setup = LedgerEntry.objects.get(kind=RowKind.BONUS)
    engine.sweep_stale(now=timezone.now() + dt.timedelta(days=3))
    resolved = engine.resolve(setup.pk)

    assert fake.effects["set-up-bonus"] == 1
    assert resolved.state == RowState.UNCLEAR
    assert fake.effects["pay-bonus"] == 0 and not LedgerEntry.objects.filter(kind=RowKind.PAY).exists()
    assert fake.submissions[assignment.external_id]["bonus_payments"] == []


def test_a_person_deciding_a_lost_set_up_paid_nobody_lets_the_bonus_be_set_up_and_paid_once(
    fake: FakeProlific,
) -> None:
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.lose_reply("create-bonus-payments")
    with pytest.raises(MarketCallError, match="unclear"):
        bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")
    setup = LedgerEntry.objects.get(kind=RowKind.BONUS)
    boss = User.objects.create_superuser("boss", "boss@example.com", "pw")

    decide_unclear(setup.pk, moved=False, user=boss, evidence="an unpaid set-up pays nobody")
    bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")

    assert fake.effects["set-up-bonus"] == 2  # the lost one (never paid) and the person's new attempt
    assert fake.effects["pay-bonus"] == 1
    assert fake.submissions[assignment.external_id]["bonus_payments"] == [40]


@pytest.mark.parametrize("loss", LOSSES)
def test_a_lost_blocklist_group_create_makes_one_group(fake: FakeProlific, loss: str) -> None:
    getattr(fake, loss)("create-participant-group")

    published()
    published()

    assert fake.effects["create-participant-group"] == 1 and len(fake.groups) == 1


def test_a_study_paused_by_prolific_shows_on_its_job_after_sync_and_can_be_resumed(
    fake: FakeProlific,
) -> None:
    job = published()
    assignment = submitted(fake, job)
    fake.studies[study_of(job)]["status"] = "PAUSED"  # Prolific paused it by itself

    synced = sync_job(job.pk)

    assert synced.state == JobState.PAUSED
    assert synced.market_status == "PAUSED" and "Prolific paused the study" in synced.market_note
    resumed = resume_job(job.pk)
    assert fake.effects["start-study"] == 1 and fake.studies[study_of(job)]["status"] == "ACTIVE"
    assert resumed.state in JobState.open()
    assert assignment.pk  # the submission stayed ours throughout


@pytest.mark.parametrize(
    ("status", "said"),
    [("AWAITING REVIEW", "await review"), ("COMPLETED", "completed at Prolific")],
)
def test_awaiting_review_and_completed_show_on_the_job_with_their_reason(
    fake: FakeProlific, status: str, said: str
) -> None:
    job = published()
    fake.studies[study_of(job)]["status"] = status

    synced = sync_job(job.pk)

    assert synced.market_status == status and said in synced.market_note


def test_start_from_awaiting_review_sends_nothing_and_says_so(fake: FakeProlific) -> None:
    job = published()
    pause_job(job.pk)
    fake.studies[study_of(job)]["status"] = "AWAITING REVIEW"
    sent_before = len(fake.calls)

    with pytest.raises(JobStateError, match=r"AWAITING REVIEW.*START does nothing"):
        resume_job(job.pk)

    job.refresh_from_db()
    assert job.state == JobState.PAUSED  # not marked collecting
    assert [op for op, _ in fake.calls[sent_before:]] == ["get-study"]  # read, nothing sent
    assert fake.effects["start-study"] == 0


def test_an_unknown_submission_status_is_never_counted_as_accepted_work(fake: FakeProlific) -> None:
    job = published()
    assignment = submitted(fake, job)
    fake.submissions[assignment.external_id]["status"] = "UNKNOWN"
    assignment.state, assignment.confirmed = AssignmentState.SUBMITTED, False
    assignment.save(update_fields=["state", "confirmed"])

    sync_job(job.pk)

    assignment.refresh_from_db()
    assert (assignment.state, assignment.confirmed) == (AssignmentState.SUBMITTED, False)
    assert timezone.now()  # sync ended without an error
