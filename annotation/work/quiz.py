"""The qualification quiz of a task type: graded and recorded per worker and task type, what the
annotator is told before it, and whether they may take it (again)."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.db.models import F

from annotation.models import Job, Qualification, Worker
from annotation.task_types import get_task_type
from annotation.work import rows


def qualification(worker: Worker, task_type: str) -> Qualification | None:
    # One row at most (unique per worker and task type): unordered, as the model's ordering by worker
    # would join the worker's row only to sort one row.
    return Qualification.objects.filter(worker=worker, task_type=task_type).order_by().first()


def grade_quiz(worker: Worker, job: Job, answers: Mapping[str, str]) -> Qualification:
    """Grade the task type's quiz and record the result per worker and task type.

    A pass stands; a fail may be retried only while attempts remain (job parameter `quiz_attempts`).
    """
    definition = get_task_type(job.task_type)
    questions = definition.quiz
    right = sum(1 for q in questions if answers.get(q.key) == q.answer)
    score = right / len(questions) if questions else 1.0
    passed = score >= quiz_pass_mark(job)
    with transaction.atomic():
        # Written out, locked, with no join (the model's ordering would lock the worker's row too).
        found = rows.select(Qualification, {"worker_id": worker.pk, "task_type": job.task_type}, lock=True)
        existing = found[0] if found else None
        if existing is None:
            return Qualification.objects.create(
                worker=worker, task_type=job.task_type, passed=passed, score=score, answers=dict(answers)
            )
        if existing.passed or existing.attempts >= int(job.params.get("quiz_attempts", 1)):
            return existing
        existing.passed, existing.score, existing.answers = passed, score, dict(answers)
        existing.attempts = F("attempts") + 1
        existing.save()
        existing.refresh_from_db()
        return existing


def quiz_pass_mark(job: Job) -> float:
    """The share of the quiz a worker must get right (job parameter `quiz_pass_mark`)."""
    return float(job.params.get("quiz_pass_mark", 0.75))


def quiz_terms(job: Job) -> str:
    """What the annotator is told before the quiz: how many attempts, and the share to get right."""
    attempts = int(job.params.get("quiz_attempts", 1))
    tries = "one attempt" if attempts == 1 else f"{attempts} attempts"
    return f"You have {tries}; you pass with {quiz_pass_mark(job):.0%} of the answers right or more."


def can_retry_quiz(worker: Worker, job: Job, found: Qualification | None | rows.Unread = "unread") -> bool:
    """Whether the worker may take the quiz (again); `found`: their qualification, when already read."""
    if found == "unread":
        found = qualification(worker, job.task_type)
    return found is None or (not found.passed and found.attempts < int(job.params.get("quiz_attempts", 1)))
