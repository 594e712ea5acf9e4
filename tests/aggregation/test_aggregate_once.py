"""A completed job is aggregated once however many deliveries ask at the same time (several Celery
workers delivering the completion task, the pipeline's step): decided under the job's lock, on
real PostgreSQL connections."""

from __future__ import annotations

import pytest
from django.utils import timezone

from aggregation import services
from aggregation.models import AggregationRun, RunTrigger
from annotation.models import Job, JobState
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus
from tests.races import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_six_parallel_requests_to_aggregate_a_completed_job_once_make_one_run() -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [["SUPPORT"] * 3, ["UNDERMINE"] * 3] * 2, strict=True)))
    Job.objects.filter(pk=job.pk).update(state=JobState.COMPLETE, completed_at=timezone.now())

    reports: list[int] = []
    errors = race(
        6,
        lambda n: reports.append(
            services.aggregate_job(job.pk, trigger=RunTrigger.COMPLETION, once=True).run_id
        ),
    )

    assert errors == []
    assert AggregationRun.objects.filter(job=job).count() == 1
    assert reports == [AggregationRun.objects.get(job=job).pk] * 6
