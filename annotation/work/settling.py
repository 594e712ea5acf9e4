"""Settling a job's state from its work: published → collecting once work starts, → complete once done.

Below both jobs and assignments: starting, submitting and syncing work all end by settling the job.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery, Sum
from django.utils import timezone

from annotation.models import Assignment, AssignmentState, Hit, Job, JobState
from annotation.signals import job_completed


def settle_job(job_id: int) -> Job:
    """Move a job to collecting once work has started, and to complete once every HIT is done.

    Every start and submit asks; most find nothing to move. Those read the job and its counts in one
    query without a lock, so workers' requests are not queued on the job's row; a move is decided
    again under the lock."""
    job = _with_counts(Job.objects.filter(pk=job_id)).get()
    if _next_state(job) is None:
        return job
    with transaction.atomic():
        job = _with_counts(Job.objects.select_for_update().filter(pk=job_id)).get()
        state = _next_state(job)
        if state is None:
            return job
        job.state = state
        if state == JobState.COMPLETE:
            job.completed_at = timezone.now()
        job.save(update_fields=["state", "completed_at", "updated"])
        if job.state == JobState.COMPLETE:
            job_completed.send(sender=Job, job_id=job.pk)
    return job


def _with_counts(jobs: QuerySet[Job]) -> QuerySet[Job]:
    """Jobs with `wanted` (assignments the HITs want), `done` (confirmed finished work) and `started`."""
    hits = Hit.objects.filter(job=OuterRef("pk")).order_by().values("job")
    assignments = Assignment.objects.filter(job=OuterRef("pk")).order_by().values("job")
    done = assignments.filter(state__in=AssignmentState.done(), confirmed=True)
    return jobs.annotate(
        wanted=Subquery(hits.annotate(n=Sum("assignments_wanted")).values("n")),
        done=Subquery(done.annotate(n=Count("pk")).values("n")),
        started=Exists(assignments),
    )


def _next_state(job: Any) -> str | None:
    if job.state not in JobState.open():
        return None
    if (job.done or 0) >= (job.wanted or 0):
        return JobState.COMPLETE
    if job.state == JobState.PUBLISHED and job.started:
        return JobState.COLLECTING
    return None
