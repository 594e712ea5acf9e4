"""In-house annotators as people: which jobs their teams may see, their own work, and each
annotator's progress on a job as a researcher sees it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from annotation.models import Assignment, AssignmentState, Job, Response, Worker
from annotation.task_types import get_task_type
from annotation.work.assignments import has_work_left
from annotation.work.jobs import Progress, job_progress


def visible_jobs(user: Any) -> QuerySet[Job]:
    """Jobs published to one of the user's teams, or to no team in particular (every annotator)."""
    return Job.objects.filter(Q(teams__isnull=True) | Q(teams__members=user)).distinct()


def is_open_to(job: Job, user: Any) -> bool:
    return not job.teams.exists() or job.teams.filter(members=user).exists()


@dataclass(frozen=True)
class WorkRow:
    """One person's work on one job."""

    key: int  # the job's pk (my work) or the worker's (a job's annotators)
    assignments: int
    submitted: int
    items: int
    seconds: float
    gold_answered: int
    gold_correct: int

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_answered if self.gold_answered else None

    @property
    def minutes(self) -> float:
        return self.seconds / 60


def work_rows(assignments: QuerySet[Assignment], by: str) -> list[WorkRow]:
    """Assignments, items answered, time and gold answers, grouped by ``by`` ("job" or "worker")."""
    done = AssignmentState.done()
    counted = assignments.values(by).annotate(
        n=Count("pk"), submitted=Count("pk", filter=Q(state__in=done)), seconds=Sum("work_seconds")
    )
    answers = (
        Response.objects.filter(assignment__in=assignments)
        .values(f"assignment__{by}")
        .annotate(
            items=Count("pk"),
            gold_answered=Count("pk", filter=Q(correct__isnull=False)),
            gold_correct=Count("pk", filter=Q(correct=True)),
        )
    )
    answered = {row[f"assignment__{by}"]: row for row in answers}
    rows = []
    for row in counted.order_by(by):
        more = answered.get(row[by], {})
        rows.append(
            WorkRow(
                key=row[by],
                assignments=row["n"],
                submitted=row["submitted"],
                items=more.get("items", 0),
                seconds=row["seconds"] or 0.0,
                gold_answered=more.get("gold_answered", 0),
                gold_correct=more.get("gold_correct", 0),
            )
        )
    return rows


def my_work(user: Any) -> list[tuple[Job, WorkRow]]:
    """The user's in-house work, job by job (newest job first)."""
    rows = work_rows(Assignment.objects.filter(worker__user=user), "job")
    jobs = Job.objects.in_bulk([row.key for row in rows])
    return sorted(((jobs[row.key], row) for row in rows), key=lambda pair: -pair[0].pk)


@dataclass(frozen=True)
class QueueRow:
    """An open job in a person's queue: everyone's progress, their own work as My work counts it, and
    whether asking for work would give them a HIT (as the end of a HIT says)."""

    job: Job
    task_name: str
    everyone: Progress
    mine: WorkRow | None
    more_for_me: bool


def queue_rows(user: Any, jobs: Iterable[Job]) -> list[QueueRow]:
    """The user's queue, one row per job, from the same counts as `my_work` and `has_work_left`."""
    worker = Worker.objects.filter(user=user).first()
    mine = {job: row for job, row in my_work(user)}
    return [
        QueueRow(
            job=job,
            task_name=get_task_type(job.task_type).name,
            everyone=job_progress(job),
            mine=mine.get(job),
            more_for_me=worker is None or has_work_left(job, worker),
        )
        for job in jobs
    ]


def annotators(job: Job) -> list[WorkRow]:
    """Each worker's progress on the job (keyed by worker pk)."""
    return work_rows(Assignment.objects.filter(job=job), "worker")
