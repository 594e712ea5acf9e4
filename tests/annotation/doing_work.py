"""A worker doing work at our pages, as the services see it: qualified (the quiz passed), then answering
every item of an assignment."""

from __future__ import annotations

from annotation.models import Assignment, Job, Worker
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer
from annotation.work.assignments import get_worker, items_of
from annotation.work.quiz import grade_quiz


def qualified(job: Job, name: str = "w1") -> Worker:
    """The job's market's worker `name`, who passed the task type's quiz."""
    worker = get_worker(job.market, name)
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type(job.task_type).quiz})
    return worker


def answers_for(assignment: Assignment, label: str = "SUPPORT") -> dict[int, Answer]:
    """The same label for every item of the assignment."""
    return {item.pk: Answer(label=label) for item in items_of(assignment)}
