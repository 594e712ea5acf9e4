"""The work queue as markets without people see it (`annotation.market_interface.base.WorkQueue`):
the worker, quiz, assignment and submission services, for a simulated crowd's loop."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.models import Assignment, Item, Job, Worker
from annotation.task_types.base import Answer
from annotation.work.assignments import NoWorkError, get_worker, items_of, next_assignment
from annotation.work.quiz import grade_quiz
from annotation.work.submitting import submit_assignment


class ServiceQueue:
    """One job's work queue."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def worker(self, external_id: str, *, simulated: bool, model: Mapping[str, Any]) -> Worker:
        return get_worker(self.job.market, external_id, simulated=simulated, model=model)

    def qualify(self, worker: Worker, answers: Mapping[str, str]) -> bool:
        return grade_quiz(worker, self.job, answers).passed

    def next_assignment(self, worker: Worker) -> Assignment | None:
        try:
            return next_assignment(self.job, worker)
        except NoWorkError:
            return None

    def items(self, assignment: Assignment) -> list[Item]:
        return items_of(assignment)

    def submit(self, assignment: Assignment, answers: Mapping[int, Answer]) -> None:
        submit_assignment(assignment.pk, answers)
