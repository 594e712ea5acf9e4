"""A worker stopped in a job by the live quality check is kept from the job's work at its market too:
on the fake MTurk behind real boto3 (the job's own qualification, which its HITs require a worker
not to hold) and on the fake Prolific (the job's own participant group, which its study excludes);
a person's reversal lets them back. Each call is recorded before it is made, sent once, retried when
it fails, and in the audit trail (annotation/work/blocklists.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent
from annotation.markets.mturk.fake_workers import NotAllowedError
from annotation.markets.prolific.fake_participants import NotEligibleError
from annotation.models import Assignment, AssignmentState, Job, Worker
from annotation.quality import services as quality
from annotation.quality.estimates import Estimate
from annotation.quality.models import (
    BlocklistAction,
    BlocklistCall,
    BlocklistCallState,
    QualityCheck,
    WorkerStop,
)
from annotation.work.blocklists import retry_unfinished
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk, GuardedProlific, guarded_prolific
from tests.annotation.market_clients import market_clients

pytestmark = pytest.mark.django_db(transaction=True)
STOPS = {"stop_workers": True, "quality_bar": 0.6}
LATER = dt.timedelta(hours=1)  # past the sweep's staleness


@pytest.fixture
def mturk(settings: Any) -> Iterator[GuardedMTurk]:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    market = GuardedMTurk(Guard())
    with market_clients(mturk=market.client(attempts=1)):
        yield market
    assert market.guard.violations == []


@pytest.fixture
def prolific(settings: Any) -> Iterator[GuardedProlific]:
    with guarded_prolific(settings) as market:
        yield market


def published(market: str, **params: Any) -> Job:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market=market, params={**STOPS, **params})
    return publish_job(job.pk)


def listing_of(job: Job) -> str:
    return str(job.hits.values_list("external_id", flat=True).first())


def stop(job: Job, external_id: str) -> WorkerStop:
    """The live check stops the worker on an estimate whose upper bound is under the job's bar."""
    worker, _ = Worker.objects.get_or_create(market=job.market, external_id=external_id)
    assignment = Assignment.objects.create(
        job=job,
        hit=job.hits.first(),
        worker=worker,
        state=AssignmentState.SUBMITTED,
        accepted_at=timezone.now(),
    )
    found = Estimate(accuracy=0.2, low=0.05, high=0.4, trials=10)
    check = QualityCheck.objects.create(
        job=job,
        worker=worker,
        assignment=assignment,
        accuracy=0.2,
        low=0.05,
        high=0.4,
        created=timezone.now(),
    )
    quality.stop_worker(check, found, quality.policy_of(job), [])
    return WorkerStop.objects.get(job=job, worker=worker)


def let_back_in(stopped: WorkerStop) -> None:
    quality.reverse_stop(stopped.pk, User.objects.create(username=f"lead{stopped.pk}"), "misread the guide")


def market_events() -> list[dict[str, Any]]:
    return [
        e.detail for e in AuditEvent.objects.filter(action=AuditEvent.Action.MARKET_BLOCKLIST).order_by("pk")
    ]


# -- MTurk ----------------------------------------------------------------------------------------


def test_a_stopped_mturk_worker_cannot_accept_the_jobs_hits_and_can_after_the_reversal(
    mturk: GuardedMTurk,
) -> None:
    job = published("mturk")
    hit = listing_of(job)
    stopped = stop(job, "ASTOPPED1")

    with pytest.raises(NotAllowedError):
        mturk.accept(hit, "ASTOPPED1")
    assert not mturk.allowed("ASTOPPED1", hit, "Discover")
    assert mturk.accept(hit, "AHONEST1")  # everybody else still takes the HIT

    let_back_in(stopped)

    assert mturk.accept(hit, "ASTOPPED1")
    assert [(e["change"], e["outcome"]) for e in market_events()] == [
        ("make", "done"),
        ("add", "done"),
        ("remove", "done"),
    ]


def test_the_jobs_hits_require_its_own_qualification_not_to_be_held(mturk: GuardedMTurk) -> None:
    job = published("mturk")
    hit_type = mturk.hit_types[mturk.hits[listing_of(job)]["HITTypeId"]]

    assert {
        "QualificationTypeId": job.market_blocklist,
        "Comparator": "DoesNotExist",
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    } in hit_type["QualificationRequirements"]
    assert mturk.qualification_types[job.market_blocklist]["Name"].startswith(f"Stancework job {job.pk}:")


def test_the_stop_is_granted_without_notifying_the_worker(mturk: GuardedMTurk) -> None:
    job = published("mturk")
    calls: list[dict[str, Any]] = []
    mturk.boto.meta.events.register(
        "before-call.mturk.AssociateQualificationWithWorker",
        lambda params, **kw: calls.append(params),
        unique_id="seen",
    )

    stop(job, "ASTOPPED1")

    assert [call["body"] for call in calls] and all(
        b'"SendNotification": false' in call["body"] for call in calls
    )


def test_a_job_that_stops_nobody_makes_no_qualification(mturk: GuardedMTurk) -> None:
    job = published("mturk", stop_workers=False)

    assert job.market_blocklist == "" and mturk.qualification_types == {}


def test_a_lost_create_reply_leaves_the_job_unpublished_and_publishing_again_finds_the_one_type(
    mturk: GuardedMTurk,
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="mturk", params=STOPS)
    mturk.lose_reply("CreateQualificationType")

    with pytest.raises(JobError, match="blocklist"):
        publish_job(job.pk)
    assert not mturk.hits  # no HIT offered without the requirement

    published_job = publish_job(job.pk)

    assert mturk.effects["qualification type created"] == 1
    assert published_job.market_blocklist in mturk.qualification_types and mturk.hits
    assert BlocklistCall.objects.get(job=job, action=BlocklistAction.MAKE).attempts == 2


# -- Prolific -------------------------------------------------------------------------------------


def test_a_stopped_prolific_participant_cannot_start_the_study_and_can_after_the_reversal(
    prolific: GuardedProlific,
) -> None:
    job = published("prolific")
    study = listing_of(job)
    prolific.client(attempts=1).get_study(study)  # Prolific has it ACTIVE once read
    stopped = stop(job, "participant00000000000009")

    with pytest.raises(NotEligibleError, match="excluded"):
        prolific.start(study, "participant00000000000009")
    assert prolific.start(study, "participant00000000000001")

    let_back_in(stopped)

    assert prolific.start(study, "participant00000000000009")
    groups = prolific.studies[study]["filters"][0]["selected_values"]
    assert job.market_blocklist in groups and len(groups) == 2  # the account's blocklist and the job's


# -- in-house -------------------------------------------------------------------------------------


def test_an_in_house_stop_calls_no_market_and_says_so_in_the_audit_trail() -> None:
    job = published("inhouse")

    stop(job, "user-1")

    assert not BlocklistCall.objects.exists() and job.market_blocklist == ""
    event = AuditEvent.objects.get(action=AuditEvent.Action.WORKER_STOPPED)
    assert "our pages refuse the worker" in event.detail["market"]


# -- recorded before the call, sent once, retried -------------------------------------------------


def test_a_run_killed_between_record_and_call_is_resumed_by_the_sweep_and_calls_once(
    mturk: GuardedMTurk,
) -> None:
    job = published("mturk")
    with mock.patch("annotation.quality.services.start_operation"):  # the run dies before the call
        stop(job, "ASTOPPED1")
    call = BlocklistCall.objects.get(action=BlocklistAction.ADD)
    assert call.state == BlocklistCallState.REQUESTED and mturk.calls["AssociateQualificationWithWorker"] == 0

    assert retry_unfinished(now=timezone.now() + LATER) == [call.pk]
    assert retry_unfinished(now=timezone.now() + LATER) == []

    call.refresh_from_db()
    assert call.state == BlocklistCallState.DONE and call.attempts == 1
    assert mturk.calls["AssociateQualificationWithWorker"] == 1
    with pytest.raises(NotAllowedError):
        mturk.accept(listing_of(job), "ASTOPPED1")


def test_a_run_killed_after_claiming_is_sent_again_once_stale_and_changes_the_market_once(
    mturk: GuardedMTurk,
) -> None:
    job = published("mturk")
    with mock.patch("annotation.quality.services.start_operation"):
        stop(job, "ASTOPPED1")
    call = BlocklistCall.objects.get(action=BlocklistAction.ADD)
    BlocklistCall.objects.filter(pk=call.pk).update(
        state=BlocklistCallState.SENT, sent_at=timezone.now(), attempts=1
    )

    assert retry_unfinished() == []  # not stale yet: the run may still be making it
    assert retry_unfinished(now=timezone.now() + LATER) == [call.pk]

    call.refresh_from_db()
    assert (call.state, call.attempts) == (BlocklistCallState.DONE, 2)
    assert mturk.effects["qualification granted"] == 1


def test_a_failed_call_is_shown_kept_and_sent_again_until_done(mturk: GuardedMTurk) -> None:
    job = published("mturk")
    mturk.down = True
    stopped = stop(job, "ASTOPPED1")
    call = BlocklistCall.objects.get(action=BlocklistAction.ADD)
    assert call.state == BlocklistCallState.FAILED and "unreachable" in call.error
    assert "failed" in stopped.market_state
    assert market_events()[-1]["outcome"].startswith("failed")

    mturk.down = False
    retry_unfinished()

    call.refresh_from_db()
    assert call.state == BlocklistCallState.DONE and call.attempts == 2
    assert "kept out" in stopped.market_state
    with pytest.raises(NotAllowedError):
        mturk.accept(listing_of(job), "ASTOPPED1")


def test_a_reversal_never_overtakes_its_stop_at_the_market(mturk: GuardedMTurk) -> None:
    job = published("mturk")
    mturk.down = True
    stopped = stop(job, "ASTOPPED1")
    let_back_in(stopped)  # its call waits for the stop's, which failed
    assert list(BlocklistCall.objects.filter(worker__isnull=False).values_list("state", flat=True)) == [
        BlocklistCallState.FAILED,
        BlocklistCallState.REQUESTED,
    ]

    mturk.down = False
    retry_unfinished(now=timezone.now() + LATER)

    assert mturk.accept(listing_of(job), "ASTOPPED1")
    assert mturk.effects["qualification granted"] == mturk.effects["qualification revoked"] == 1


def test_staff_see_where_the_stop_stands_at_the_market_in_the_admin_and_on_the_dashboard(
    mturk: GuardedMTurk, client: Client
) -> None:
    job = published("mturk")
    stop(job, "ASTOPPED1")
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    listed = client.get(reverse("admin:annotation_workerstop_changelist")).content.decode()
    panel = client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    assert "kept out of the job at its market" in listed
    assert "kept out of the job at its market" in panel.split('id="stopped-workers"')[1].split("</table>")[0]
