"""Where database, transactions and providers meet. Views, tasks and commands call these.

The names below are read from their modules on first use (PEP 562), so importing a pure module of
this package (`costs`, `bundling`) does not import Django: this file imports nothing itself.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotation.work.assignments import (
        AnswerError,
        AssignmentStateError,
        IdentityConflictError,
        NotQualifiedError,
        NoWorkError,
        ServiceQueue,
        can_retry_quiz,
        check_can_work,
        get_worker,
        grade_quiz,
        has_work_left,
        items_of,
        market_hit,
        next_assignment,
        qualification,
        quiz_pass_mark,
        submit_assignment,
    )
    from annotation.work.jobs import (
        BudgetError,
        CostEstimate,
        JobError,
        JobStateError,
        NoItemsError,
        Progress,
        cancel_job,
        check_cost,
        check_workers_per_item,
        create_job,
        estimate_cost,
        job_progress,
        pause_job,
        publish_job,
        request_publish,
        request_sync,
        resume_job,
        sync_job,
    )
    from annotation.work.market import bonus_assignment, expire_job, extend_job
    from annotation.work.records import (
        ReviewError,
        block_worker,
        counted_responses,
        gold_accuracy,
        long_format,
        pseudonym_key,
        review_assignment,
        unblock_worker,
        worker_by_pseudonym,
        worker_pseudonym,
    )
    from annotation.work.settling import settle_job

_HOMES = {
    "AnswerError": "annotation.work.assignments",
    "AssignmentStateError": "annotation.work.assignments",
    "IdentityConflictError": "annotation.work.assignments",
    "NotQualifiedError": "annotation.work.assignments",
    "NoWorkError": "annotation.work.assignments",
    "ServiceQueue": "annotation.work.assignments",
    "can_retry_quiz": "annotation.work.assignments",
    "check_can_work": "annotation.work.assignments",
    "get_worker": "annotation.work.assignments",
    "grade_quiz": "annotation.work.assignments",
    "has_work_left": "annotation.work.assignments",
    "items_of": "annotation.work.assignments",
    "market_hit": "annotation.work.assignments",
    "next_assignment": "annotation.work.assignments",
    "qualification": "annotation.work.assignments",
    "quiz_pass_mark": "annotation.work.assignments",
    "submit_assignment": "annotation.work.assignments",
    "BudgetError": "annotation.work.jobs",
    "CostEstimate": "annotation.work.jobs",
    "JobError": "annotation.work.jobs",
    "JobStateError": "annotation.work.jobs",
    "NoItemsError": "annotation.work.jobs",
    "Progress": "annotation.work.jobs",
    "cancel_job": "annotation.work.jobs",
    "check_cost": "annotation.work.jobs",
    "check_workers_per_item": "annotation.work.jobs",
    "create_job": "annotation.work.jobs",
    "estimate_cost": "annotation.work.jobs",
    "job_progress": "annotation.work.jobs",
    "pause_job": "annotation.work.jobs",
    "publish_job": "annotation.work.jobs",
    "request_publish": "annotation.work.jobs",
    "request_sync": "annotation.work.jobs",
    "resume_job": "annotation.work.jobs",
    "settle_job": "annotation.work.settling",
    "sync_job": "annotation.work.jobs",
    "bonus_assignment": "annotation.work.market",
    "expire_job": "annotation.work.market",
    "extend_job": "annotation.work.market",
    "ReviewError": "annotation.work.records",
    "block_worker": "annotation.work.records",
    "unblock_worker": "annotation.work.records",
    "counted_responses": "annotation.work.records",
    "gold_accuracy": "annotation.work.records",
    "long_format": "annotation.work.records",
    "pseudonym_key": "annotation.work.records",
    "review_assignment": "annotation.work.records",
    "worker_by_pseudonym": "annotation.work.records",
    "worker_pseudonym": "annotation.work.records",
}

__all__ = [
    "AnswerError",
    "AssignmentStateError",
    "BudgetError",
    "CostEstimate",
    "IdentityConflictError",
    "JobError",
    "JobStateError",
    "NoItemsError",
    "NoWorkError",
    "NotQualifiedError",
    "Progress",
    "ReviewError",
    "ServiceQueue",
    "block_worker",
    "bonus_assignment",
    "can_retry_quiz",
    "cancel_job",
    "check_can_work",
    "check_cost",
    "check_workers_per_item",
    "counted_responses",
    "create_job",
    "estimate_cost",
    "expire_job",
    "extend_job",
    "get_worker",
    "gold_accuracy",
    "grade_quiz",
    "has_work_left",
    "items_of",
    "job_progress",
    "long_format",
    "market_hit",
    "next_assignment",
    "pause_job",
    "pseudonym_key",
    "publish_job",
    "qualification",
    "quiz_pass_mark",
    "request_publish",
    "request_sync",
    "resume_job",
    "review_assignment",
    "settle_job",
    "submit_assignment",
    "sync_job",
    "unblock_worker",
    "worker_by_pseudonym",
    "worker_pseudonym",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
