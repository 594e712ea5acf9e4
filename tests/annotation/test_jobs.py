"""A job's life through its services: created from the task type's defaults over the items its
filters choose, published, synced with its market, paused and cancelled."""

from __future__ import annotations

from decimal import Decimal

import pytest

from annotation.market_interface.base import AssignmentReport, SyncReport
from annotation.markets.inhouse.market import InhouseMarket
from annotation.models import AssignmentState, HitItem, JobState, Response
from annotation.work.assignments import NoWorkError, next_assignment
from annotation.work.job_errors import BudgetError, JobStateError
from annotation.work.jobs import (
    cancel_job,
    create_job,
    pause_job,
    publish_job,
    request_publish,
    resume_job,
    sync_job,
)
from annotation.work.records import long_format
from annotation.work.submitting import submit_assignment
from corpus.models import Perspective
from tests.annotation.doing_work import answers_for, qualified
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def test_stance_job_bundles_ten_claims_with_all_their_perspectives_per_hit() -> None:
    make_corpus(claims=23, perspectives=3)

    job = create_job("stance", {}, market="inhouse")

    hits = list(job.hits.order_by("position"))
    assert [hit.items.count() for hit in hits] == [30, 30, 9]
    first_claims = {item.payload["cid"] for item in hits[0].items.all()}
    assert len(first_claims) == 10
    assert job.state == JobState.DRAFT and job.workers_per_item == 3


def test_job_parameters_override_the_task_type_defaults() -> None:
    make_corpus(claims=4, perspectives=2)

    job = create_job("stance", {}, params={"groups_per_hit": 2, "workers_per_item": 5, "reward": "2.00"})

    assert job.hits.count() == 2
    assert set(job.hits.values_list("assignments_wanted", flat=True)) == {5}
    assert job.reward == Decimal("2.00")


def test_unknown_parameters_are_refused() -> None:
    make_corpus(claims=1)

    with pytest.raises(ValueError, match="no parameter"):
        create_job("stance", {}, params={"wokers_per_item": 5})


def test_each_hit_item_belongs_to_its_job() -> None:
    make_corpus(claims=2)
    first = create_job("stance", {})
    second = create_job("topic_tagging", {})

    assert not HitItem.objects.filter(hit__job=first).exclude(item__job=first).exists()
    assert second.items.count() == 2 and Perspective.objects.count() == 8


def test_simulated_job_completes_after_publish_then_sync() -> None:
    make_corpus(claims=20, perspectives=3)
    job = create_job("stance", {}, market="simulated", params={"crowd": {"size": 8}})

    publish_job(job.pk)
    job = sync_job(job.pk)

    assert job.state == JobState.COMPLETE
    assert Response.objects.filter(job=job).count() == 60 * 3
    assert not Response.objects.filter(job=job, simulated=False).exists()
    assert long_format(job).count() == 180


def test_publish_and_sync_are_safe_to_repeat() -> None:
    make_corpus(claims=3)
    job = create_job("stance", {}, market="simulated")

    publish_job(job.pk)
    publish_job(job.pk)
    sync_job(job.pk)
    sync_job(job.pk)

    assert Response.objects.filter(job=job).count() == 12 * 3


def test_publish_is_enqueued_only_after_commit(django_capture_on_commit_callbacks) -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        request_publish(job)
        job.refresh_from_db()
        assert job.state == JobState.DRAFT

    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert len(callbacks) == 1 and job.state == JobState.PUBLISHED


def test_publishing_over_budget_is_refused() -> None:
    make_corpus(claims=20)
    job = create_job("stance", {}, budget=Decimal("5.00"))  # 2 HITs × 3 × 1.50 = 9.00

    with pytest.raises(BudgetError):
        publish_job(job.pk)

    job.refresh_from_db()
    assert job.state == JobState.DRAFT


def test_pause_stops_new_work_and_cancel_expires_hits() -> None:
    make_corpus(claims=2)
    job = create_job("stance", {}, params={"groups_per_hit": 1})
    publish_job(job.pk)
    worker = qualified(job)

    pause_job(job.pk)
    job.refresh_from_db()
    with pytest.raises(NoWorkError, match="not taking work"):
        next_assignment(job, worker)

    cancel_job(job.pk)
    assert set(job.hits.values_list("expired", flat=True)) == {True}
    with pytest.raises(JobStateError):
        publish_job(job.pk) and resume_job(job.pk)


class ReportingMarket(InhouseMarket):
    """In-house work whose 'market' reports A1 approved, A2 rejected and an assignment we never had."""

    name = "reporting"

    def sync(self, job, queue) -> SyncReport:
        return SyncReport(
            assignments=[
                AssignmentReport("h", "A1", "w1", AssignmentState.APPROVED),
                AssignmentReport("h", "A2", "w2", AssignmentState.REJECTED),
                AssignmentReport("h", "A3", "w3", AssignmentState.APPROVED),
            ]
        )


def test_sync_takes_each_assignments_state_from_the_market(settings) -> None:
    settings.ANNOTATION_MARKETS = {
        **settings.ANNOTATION_MARKETS,
        "reporting": "tests.annotation.test_jobs.ReportingMarket",
    }
    make_corpus(claims=2, perspectives=2)
    job = publish_job(create_job("stance", {}, market="reporting").pk)
    first = next_assignment(job, qualified(job, "w1"), external_id="A1")
    second = next_assignment(job, qualified(job, "w2"), external_id="A2")
    submit_assignment(first.pk, answers_for(first))
    submit_assignment(second.pk, answers_for(second))

    sync_job(job.pk)

    states = dict(job.assignments.values_list("external_id", "state"))
    assert states == {"A1": AssignmentState.APPROVED, "A2": AssignmentState.REJECTED}
