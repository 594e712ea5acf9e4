"""Faults found by attacking the platform with markets that behave as documented (issue 42): a market
that loses replies, refuses requests, fails the read after a lost reply and changes state on its own.
Each test failed on the code before the fix."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import requests
from django.utils import timezone

from annotation.ledger import engine
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.base import MarketCallError
from annotation.market_interface.errors import MarketUnavailableError
from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.screening import ScreeningError
from annotation.models import Assignment, AssignmentState, Hit, Job, JobState, Worker
from annotation.work.job_errors import JobError
from annotation.work.jobs import cancel_job, create_job, pause_job, publish_job, resume_job, sync_job
from annotation.work.market import bonus_assignment, extend_job
from annotation.work.records import review_assignment, unblock_worker
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk
from tests.annotation.market_clients import market_clients
from tests.annotation.test_prolific_fake_states import spec
from tests.annotation.test_prolific_market import REASON, fake, published, study_of, submitted

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest

LIVE = ("PUBLISHING", "ACTIVE", "PAUSED")


def drafted() -> Job:
    make_corpus(claims=2, perspectives=2)
    return create_job("stance", {}, market="prolific", params={"bonus_cap": "5.00"})


def sweep_and_run(later: dt.timedelta = dt.timedelta(hours=1)) -> None:
    """What beat and the workers do: the sweeper's report, each row executed or resolved."""
    report = engine.sweep_stale(now=timezone.now() + later)
    for entry_id in report.requeued:
        engine.execute(entry_id)
    for entry_id in report.unclear:
        engine.resolve(entry_id)


def publish_that_never_reached_prolific(fake: FakeProlific) -> Job:
    job = drafted()
    fake.throttle("transition-study")  # the PUBLISH is refused for now: the row goes back to requested
    with pytest.raises(MarketCallError):
        publish_job(job.pk)
    row = LedgerEntry.objects.get(kind=RowKind.CREATE_HIT)
    assert row.state == RowState.REQUESTED
    return job


# -- the ledger acts only for a job that still wants the action ------------------------------------


def test_a_cancelled_jobs_publish_is_never_made_by_the_sweeper(fake: FakeProlific) -> None:
    job = publish_that_never_reached_prolific(fake)
    cancel_job(job.pk)

    sweep_and_run()

    assert [s["status"] for s in fake.studies.values()] == ["UNPUBLISHED"]
    row = LedgerEntry.objects.get(kind=RowKind.CREATE_HIT)
    assert row.state == RowState.FAILED and "cancelled" in row.error


def test_a_draft_jobs_publish_is_never_made_by_the_sweeper(fake: FakeProlific) -> None:
    job = publish_that_never_reached_prolific(fake)

    sweep_and_run()
    engine.execute(LedgerEntry.objects.get(kind=RowKind.CREATE_HIT).pk)  # the admin's "run requested"

    assert fake.effects["publish-study"] == 0
    assert Job.objects.get(pk=job.pk).state == JobState.DRAFT
    assert "draft" in LedgerEntry.objects.get(kind=RowKind.CREATE_HIT).error
    assert publish_job(job.pk).state == JobState.PUBLISHED  # asked again: published once
    assert fake.effects["publish-study"] == 1 and len(fake.studies) == 1


def test_a_study_published_while_its_job_was_cancelled_is_stopped_and_said_on_the_job(
    fake: FakeProlific,
) -> None:
    job = drafted()
    fake.hold(1, "transition-study")  # the PUBLISH is made; its answer waits while staff cancel
    import threading

    publishing = threading.Thread(target=lambda: publish_job(job.pk))
    publishing.start()
    assert fake.held.wait(10)
    cancel_job(job.pk)
    fake.release.set()
    publishing.join(10)

    (study,) = fake.studies.values()
    assert study["status"] not in LIVE
    job.refresh_from_db()
    assert job.state == JobState.CANCELLED and study["id"] in job.market_note


# -- a token older than its lifetime is decided by reading ------------------------------------------


@pytest.fixture
def mturk() -> Iterator[GuardedMTurk]:
    market = GuardedMTurk(Guard())
    with market_clients(mturk=market.client(attempts=1)):
        yield market


def mturk_assignment(market: GuardedMTurk) -> Assignment:
    job = Job.objects.create(
        task_type="stance", market="mturk", reward=Decimal("0.50"), params={"bonus_cap": "5.00"}
    )
    hit = Hit.objects.create(
        job=job,
        position=0,
        assignments_wanted=1,
        reward=Decimal("0.50"),
        external_id="HIT0000000000000000000000001",
    )
    worker = Worker.objects.create(market="mturk", external_id="AWORKER1")
    market.submit(hit.external_id, "ASG1", worker.external_id, status="Approved")
    return Assignment.objects.create(
        job=job,
        hit=hit,
        worker=worker,
        state=AssignmentState.APPROVED,
        external_id="ASG1",
        accepted_at=timezone.now(),
    )


def test_a_bonus_resent_after_a_25_hour_outage_is_read_at_mturk_not_paid_again(mturk: GuardedMTurk) -> None:
    assignment = mturk_assignment(mturk)
    mturk.lose_reply("SendBonus")  # paid, and the reply lost: the row goes back to requested
    with pytest.raises(MarketCallError):
        bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")
    row = LedgerEntry.objects.get(kind=RowKind.BONUS)
    assert row.state == RowState.REQUESTED

    mturk.advance(hours=25)  # MTurk is down for 25 hours; the token has expired when it is back
    LedgerEntry.objects.filter(pk=row.pk).update(requested_at=timezone.now() - dt.timedelta(hours=25))
    engine.execute(row.pk)
    sweep_and_run()

    assert len(mturk.bonuses) == 1
    assert LedgerEntry.objects.get(pk=row.pk).state == RowState.CONFIRMED


# -- find_study pages through every page, in order -------------------------------------------------


def test_a_lost_create_finds_its_study_beyond_a_short_first_page() -> None:
    """Prolific serves fewer studies a page than asked (here 2 of 200), in no stable order unless
    asked: the study a lost create made is found on whatever page it is."""
    market = FakeProlific()
    market.page_cap = 2
    client = market.client(attempts=1)
    ours = client.create_study(spec(0)).study_id
    for n in range(1, 5):  # other studies of the project, made and changed since ours
        client.create_study(spec(n))

    found = client.find_study(FakeProlific.PROJECT, spec(0).internal_name)

    assert found is not None and found.study_id == ours


# -- the job's state follows the market's -----------------------------------------------------------


def test_a_pause_the_market_did_not_take_leaves_the_job_recruiting(fake: FakeProlific) -> None:
    job = published()
    fake.down = True

    with pytest.raises(MarketUnavailableError):
        pause_job(job.pk)

    fake.down = False
    assert Job.objects.get(pk=job.pk).state == JobState.PUBLISHED
    assert fake.studies[study_of(job)]["status"] in ("PUBLISHING", "ACTIVE")


def test_a_resume_racing_an_auto_pause_ends_paused_with_the_reason_after_the_scheduled_sync(
    fake: FakeProlific, settings: Any
) -> None:
    from annotation.work.syncing import sync_live_jobs

    assert "sync-live-jobs" in settings.CELERY_BEAT_SCHEDULE
    job = published()
    fake.studies[study_of(job)]["total_available_places"] = 1
    pause_job(job.pk)
    assignment = submitted(fake, job)
    resume_job(job.pk)  # START; the study fills and awaits review
    fake.return_submission(assignment.external_id)  # Prolific pauses the full study by itself

    sync_live_jobs()

    job.refresh_from_db()
    assert job.state == JobState.PAUSED
    assert fake.studies[study_of(job)]["status"] == "PAUSED"
    assert "paused the study" in job.market_note


def test_a_study_recruiting_while_the_job_is_paused_is_said_and_followed(fake: FakeProlific) -> None:
    job = published()
    pause_job(job.pk)
    fake.studies[study_of(job)]["status"] = "ACTIVE"  # a START whose reply and read-back were lost

    synced = sync_job(job.pk)

    assert synced.state == JobState.COLLECTING
    assert "ACTIVE" in synced.market_note


# -- one currency per job at every paying call ------------------------------------------------------


def test_a_bonus_is_refused_when_prolific_pays_in_another_currency_naming_both(fake: FakeProlific) -> None:
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.currency = "EUR"  # the workspace moved to EUR after the job was booked in GBP

    with pytest.raises(MarketCallError, match=r"GBP.*EUR|EUR.*GBP"):
        bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")

    assert fake.effects["set-up-bonus"] == 0 and fake.effects["pay-bonus"] == 0


def test_an_extend_is_refused_when_prolific_pays_in_another_currency(fake: FakeProlific) -> None:
    job = published()
    fake.currency = "EUR"
    places = fake.studies[study_of(job)]["total_available_places"]

    with pytest.raises(MarketCallError, match="EUR"):
        extend_job(job.pk, 1)

    assert fake.studies[study_of(job)]["total_available_places"] == places


# -- unblock, transport errors, 429, screening -------------------------------------------------------


def test_unblock_reads_the_blocklist_group_not_our_own_flag(fake: FakeProlific) -> None:
    job = published()
    worker = Worker.objects.create(market="prolific", external_id="f" * 24)
    (group,) = fake.groups.values()
    group["members"].append(worker.external_id)  # a block whose reply was lost: not blocked here

    unblock_worker(worker.pk)

    assert group["members"] == [] and job.pk


def test_a_reply_broken_mid_body_is_a_lost_reply_read_back(fake: FakeProlific) -> None:
    assignment = submitted(fake, published())
    fake.break_reply("transition-submission")

    reviewed = review_assignment(assignment.pk, approve=True, feedback="")

    assert reviewed.state == AssignmentState.APPROVED
    assert fake.effects["approve-submission"] == 1
    assert LedgerEntry.objects.get(kind=RowKind.APPROVE).state == RowState.CONFIRMED


def test_a_client_turns_every_broken_reply_into_a_lost_reply() -> None:
    for broken in (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError):
        market = FakeProlific()
        market.break_reply("get-project", broken)
        with pytest.raises(MarketUnavailableError):
            market.client(attempts=1).get_project(FakeProlific.PROJECT)


def test_a_throttled_pay_is_sent_again_after_retry_after_and_pays_once(fake: FakeProlific) -> None:
    waits: list[float] = []
    client = fake.client(attempts=3, sleep=waits.append)
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.throttle("pay-bonus-payments", retry_after=4)

    with market_clients(prolific=client):
        bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")

    assert waits == [4.0]
    assert fake.paid(assignment.external_id) == 1
    assert LedgerEntry.objects.get(kind=RowKind.PAY).state == RowState.CONFIRMED


def test_a_throttled_pay_goes_back_to_requested_and_is_sent_again_never_unclear(fake: FakeProlific) -> None:
    """With no retry left in the client, the 429'd pay row is requested again (nothing was paid),
    and the re-ask pays it once."""
    assignment = submitted(fake, published(), state=AssignmentState.APPROVED)
    fake.throttle("pay-bonus-payments", retry_after=1)

    bonus_assignment(assignment.pk, Decimal("0.40"), "Gold right", "gold")

    pays = [path for operation, path in fake.calls if operation == "pay-bonus-payments"]
    assert len(pays) == 2 and fake.paid(assignment.external_id) == 1
    pay = LedgerEntry.objects.get(kind=RowKind.PAY)
    assert pay.state == RowState.CONFIRMED and "throttled" in pay.error


def test_a_maximum_time_prolific_refuses_is_refused_before_any_row(fake: FakeProlific) -> None:
    make_corpus(claims=1, perspectives=1)
    job = create_job(
        "stance",
        {},
        market="prolific",
        params={"minutes": 10, "prolific_screening": {"maximum_allowed_time": 20}},
    )

    with pytest.raises((JobError, ScreeningError), match="29"):
        publish_job(job.pk)

    assert not LedgerEntry.objects.exists() and fake.studies == {}
    assert REASON


def test_an_mturk_reply_broken_mid_stream_is_a_lost_reply() -> None:
    from botocore.exceptions import IncompleteReadError, ResponseStreamingError

    for broken in (
        ResponseStreamingError(error="cut mid-body"),
        IncompleteReadError(actual_bytes=3, expected_bytes=9),
    ):
        market = GuardedMTurk(Guard())

        def cut(error: Exception = broken, **kwargs: object) -> None:
            raise error

        market.boto.meta.events.register_first("before-call.mturk.GetAccountBalance", cut)
        with pytest.raises(MarketUnavailableError):
            market.client(attempts=1).get_account_balance()
