"""The admin's market actions, registered as background operations (operations.registry): each acts on its
objects one by one in a Celery worker and reports every outcome, so no web request waits on a market.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from annotation.ledger.reconcile import reconcile_job
from annotation.market_interface.base import MarketCallError
from annotation.market_interface.errors import MarketError
from annotation.models import Assignment, Job, Worker
from annotation.quality.models import BlocklistCall, BlocklistCallState
from annotation.quality.services import SEND_BLOCKLIST_CALLS
from annotation.work.accuracy import BonusReport, bonus_correct_answers
from annotation.work.blocklists import send_call
from annotation.work.cost_checks import CostEstimate, estimate_cost
from annotation.work.job_errors import JobError, JobStateError
from annotation.work.jobs import cancel_job, pause_job, publish_job, resume_job, sync_job
from annotation.work.market import bonus_assignment, expire_job, extend_job
from annotation.work.records import ReviewError, block_worker, review_assignment, unblock_worker
from operations.models import Operation
from operations.registry import OperationFailedError, Progress, register

SHOW_MARKET_COSTS = "annotation.show_market_costs"

# What a failed market action can raise, reported per object instead of ending the whole run.
ACTION_ERRORS = (JobError, JobStateError, ReviewError, ValueError, MarketCallError, MarketError)


class ActionFailedError(OperationFailedError):
    """Some objects of a market action failed (each named in the log): the operation ends failed."""


def _each(
    progress: Progress, objects: Iterable[Any], act: Callable[[Any], str], *, keep: bool = False
) -> None:
    """Act on each object, logging its outcome (and, with `keep`, keeping it by the object's id for a
    page to read back); an unreachable or refusing market fails the operation with the market's
    message once every object had its turn."""
    failed: list[str] = []
    for obj in objects:
        try:
            outcome = act(obj)
        except ACTION_ERRORS as error:
            outcome = f"failed: {error}"
            failed.append(f"{obj}: {error}")
        progress.step(f"{obj}: {outcome}")
        if keep:
            progress.result(str(obj.pk), outcome)
    if failed:
        raise ActionFailedError(f"{len(failed)} failed; first: {failed[0]}")


def _jobs(job_ids: list[int]) -> list[Job]:
    return list(Job.objects.filter(pk__in=job_ids).order_by("pk"))


def _assignments(assignment_ids: list[int]) -> list[Assignment]:
    return list(Assignment.objects.filter(pk__in=assignment_ids).order_by("pk"))


@register("annotation.publish_jobs")
def publish_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {publish_job(job.pk).state}")


@register("annotation.extend_jobs")
def extend_jobs(progress: Progress, job_ids: list[int], count: int) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {extend_job(job.pk, count).state}")


@register("annotation.expire_jobs")
def expire_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {expire_job(job.pk).state}")


@register("annotation.pause_jobs")
def pause_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {pause_job(job.pk).state}")


@register("annotation.resume_jobs")
def resume_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {resume_job(job.pk).state}")


@register("annotation.block_workers")
def block_workers(
    progress: Progress, worker_ids: list[int], reason: str, reasons: dict[str, str] | None = None
) -> None:
    """Block each worker for `reason`, or for their own reason in `reasons` (keyed by worker id)."""
    workers = Worker.objects.filter(pk__in=worker_ids).order_by("pk")
    why = reasons or {}

    def block(worker: Worker) -> str:
        return "blocked" if block_worker(worker.pk, why.get(str(worker.pk), reason)).blocked else ""

    _each(progress, workers, block)


@register("annotation.unblock_workers")
def unblock_workers(progress: Progress, worker_ids: list[int]) -> None:
    workers = Worker.objects.filter(pk__in=worker_ids).order_by("pk")
    _each(progress, workers, lambda worker: "blocked" if unblock_worker(worker.pk).blocked else "unblocked")


@register(SEND_BLOCKLIST_CALLS)
def send_blocklist_calls(progress: Progress, call_ids: list[int]) -> None:
    """A job's blocklist calls, each recorded before (annotation.work.blocklists); one failing fails
    the operation with its message, and the retry sweep sends it again."""
    calls = BlocklistCall.objects.filter(pk__in=call_ids).order_by("pk")
    _each(progress, calls, lambda call: _blocklist_outcome(send_call(call.pk)))


def _blocklist_outcome(call: BlocklistCall) -> str:
    if call.state == BlocklistCallState.FAILED:
        raise MarketCallError(call.error)
    return call.get_state_display()


@register("annotation.sync_jobs")
def sync_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {sync_job(job.pk).state}")


@register("annotation.cancel_jobs")
def cancel_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"now {cancel_job(job.pk).state}")


@register("annotation.reconcile_jobs")
def reconcile_jobs(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: f"{len(reconcile_job(job.pk))} mismatches flagged")


@register("annotation.review_work")
def review_work(progress: Progress, assignment_ids: list[int], approve: bool, feedback: str) -> None:
    _each(
        progress,
        _assignments(assignment_ids),
        lambda a: review_assignment(a.pk, approve=approve, feedback=feedback).state,
    )


@register("annotation.bonus_work")
def bonus_work(progress: Progress, assignment_ids: list[int], amount: str, reason: str, batch: str) -> None:
    _each(
        progress,
        _assignments(assignment_ids),
        lambda a: bonus_assignment(a.pk, Decimal(amount), reason, batch).state,
    )


def _bonus_outcome(report: BonusReport) -> str:
    refused = f", {len(report.refused)} refused (first: {report.refused[0]})" if report.refused else ""
    return report.note or f"{report.paid} correct answers bonused ({report.amount}){refused}"


@register("annotation.bonus_correct_answers")
def bonus_correct_work(progress: Progress, job_ids: list[int]) -> None:
    _each(progress, _jobs(job_ids), lambda job: _bonus_outcome(bonus_correct_answers(job.pk)))


def _cost_line(estimate: CostEstimate) -> str:
    budget = f"budget {estimate.budget}" if estimate.budget is not None else "no budget set"
    balance = f"balance {estimate.balance}" if estimate.balance is not None else "no market balance"
    verdict = estimate.refusal or "within budget and balance"
    return (
        f"worst case {estimate.worst_case} (fee {estimate.fee_rate:%}, bonus cap {estimate.bonus_cap}); "
        f"{budget}; {balance}: {verdict}"
    )


@register(SHOW_MARKET_COSTS)
def show_market_costs(progress: Progress, job_ids: list[int]) -> None:
    """Each job's worst case and the market's balance, read from the market by the worker."""
    _each(progress, _jobs(job_ids), lambda job: _cost_line(estimate_cost(job)), keep=True)


# How many of the latest cost reads of the jobs asked about are searched: older ones are stale anyway.
RECENT_READS = 50


@dataclass(frozen=True)
class CostRead:
    """What the last `show_market_costs` operation to finish read from the market for one job."""

    operation: Operation
    line: str  # what the read came to for the job: worst case, balance and verdict, or why it failed


def last_cost_reads(job_ids: Iterable[int]) -> dict[int, CostRead]:
    """Per job, the market's cost and balance as last read by a background operation, found by the
    job's key in the operation's results (one query); a web page shows these instead of asking the
    market itself."""
    wanted, found = {str(pk) for pk in job_ids}, dict[int, CostRead]()
    if not wanted:
        return found
    reads = Operation.objects.filter(
        kind=SHOW_MARKET_COSTS, finished_at__isnull=False, results__has_any_keys=sorted(wanted)
    )
    for operation in reads.order_by("-finished_at", "-pk")[:RECENT_READS]:
        for key in sorted(wanted & operation.results.keys()):
            found.setdefault(int(key), CostRead(operation, operation.results[key]))
    return found
