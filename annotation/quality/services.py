"""Where the live quality checks meet the database: gold added to assignments, estimates after each
submit, workers stopped on evidence and let back in by a person."""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.models import (
    Assignment,
    Item,
    Job,
    Response,
    Worker,
    WorkerItem,
    WorkerItemReason,
)
from annotation.quality.estimates import Estimate, estimate, should_stop
from annotation.quality.evidence import evidence_of
from annotation.quality.gold_schedule import QualityPolicy, gold_count, gold_places, gold_rate
from annotation.quality.models import (
    BlocklistAction,
    BlocklistCall,
    QualityCheck,
    WorkerStop,
)
from operations.services import start_operation

# The background operation that sends recorded blocklist calls (annotation.work.market_actions).
SEND_BLOCKLIST_CALLS = "annotation.send_blocklist_calls"


class StopReversalError(ValueError):
    """A reversal of a stop that is not in force (already reversed)."""


def policy_of(job: Job) -> QualityPolicy:
    """The job's quality policy, from the parameters frozen on it at creation."""
    return QualityPolicy.from_params(job.params)


# Gold ---------------------------------------------------------------------------------------------
def add_gold(assignment: Assignment, hit_items: int) -> int:
    """Hold, for this assignment, as many of the job's unseen gold items as the schedule asks for the
    worker now; how many. Inside the transaction that takes the assignment: the (item, worker)
    constraint keeps any gold item from the worker twice."""
    job = assignment.job
    gold_answered, gold_correct, items_done = _gold_so_far(job, assignment.worker_id)
    rate = gold_rate(policy_of(job), gold_correct, gold_answered, items_done)
    rng = random.Random(f"gold-{job.params.get('seed', 0)}-{assignment.pk}")
    wanted = gold_count(rate, hit_items, rng)
    if wanted == 0:
        return 0
    unseen = list(
        Item.objects.filter(job=job, is_gold=True)
        .exclude(worker_items__worker_id=assignment.worker_id)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    chosen = rng.sample(unseen, min(wanted, len(unseen)))
    WorkerItem.objects.bulk_create(
        WorkerItem(
            item_id=pk, worker_id=assignment.worker_id, assignment=assignment, reason=WorkerItemReason.GOLD
        )
        for pk in chosen
    )
    return len(chosen)


def _gold_so_far(job: Job, worker_id: int) -> tuple[int, int, int]:
    """(gold answered, gold right, items answered) by the worker in the job."""
    found = Response.objects.filter(job=job, worker_id=worker_id).aggregate(
        answered=Count("pk", filter=Q(is_gold=True)),
        correct=Count("pk", filter=Q(is_gold=True, correct=True)),
        items=Count("pk"),
    )
    return int(found["answered"]), int(found["correct"]), int(found["items"])


def with_gold(assignment: Assignment, hit_items: Sequence[Any], gold: Sequence[Any]) -> list[Any]:
    """The assignment's items as the worker sees them: the HIT's, with its gold among them at places
    drawn once per assignment, so a gold item looks like any other and stays where it was."""
    places = set(gold_places(len(hit_items), len(gold), random.Random(f"places-{assignment.pk}")))
    regular, extra = iter(hit_items), iter(gold)
    return [next(extra) if n in places else next(regular) for n in range(len(hit_items) + len(gold))]


def gold_of(assignment: Assignment) -> list[Item]:
    """The gold items the schedule added to this assignment, each with the assignment's job."""
    items = list(
        Item.objects.filter(
            worker_items__assignment=assignment, worker_items__reason=WorkerItemReason.GOLD
        ).order_by("pk")
    )
    for item in items:
        item.job = assignment.job
    return items


def gold_ids_of(assignment: Assignment) -> list[int]:
    return list(
        WorkerItem.objects.filter(assignment=assignment, reason=WorkerItemReason.GOLD)
        .order_by("item_id")
        .values_list("item_id", flat=True)
    )


# Estimates and stops ------------------------------------------------------------------------------
def check_after_submit(assignment: Assignment) -> QualityCheck:
    """Estimate the worker's accuracy in the job from everything they answered in it; stop them when
    the job's policy says so. Stopping never rejects: the work stays for a person to review."""
    job, worker = assignment.job, assignment.worker
    policy = policy_of(job)
    evidence, rows = evidence_of(job, worker.pk)
    found = estimate(evidence, policy.quality_confidence)
    check = QualityCheck.objects.create(
        job=job,
        worker=worker,
        assignment=assignment,
        accuracy=found.accuracy,
        low=found.low,
        high=found.high,
        gold_answered=evidence.gold_answered,
        gold_correct=evidence.gold_correct,
        compared=evidence.compared,
        agreed=evidence.agreed,
        created=timezone.now(),
    )
    if should_stop(found, policy) and not WorkerStop.objects.filter(job=job, worker=worker).exists():
        stop_worker(check, found, policy, rows)
    return check


def stop_worker(
    check: QualityCheck, found: Estimate, policy: QualityPolicy, rows: list[dict[str, Any]]
) -> None:
    """Stop the check's worker in its job on this estimate, once: the stop with its evidence, the call
    that keeps them from the job at its market (where it keeps a blocklist of the job's), the audit event."""
    try:
        with transaction.atomic():
            stop = WorkerStop.objects.create(
                job=check.job,
                worker=check.worker,
                quality_check=check,
                bar=policy.quality_bar,
                evidence=rows,
                created=check.created,
            )
            told = _tell_market(stop, BlocklistAction.ADD)
    except IntegrityError:
        return  # a parallel submit of the same worker stopped them first
    audit.record(
        None,
        AuditEvent.Action.WORKER_STOPPED,
        f"job {check.job_id}",
        stop=stop.pk,
        worker=check.worker.pseudonym or f"worker {check.worker_id}",
        bar=policy.quality_bar,
        accuracy=round(found.accuracy, 4),
        interval=[round(found.low, 4), round(found.high, 4)],
        gold=[check.gold_answered, check.gold_correct],
        compared=[check.compared, check.agreed],
        evidence=rows,
        market=_market_words(check.job, told),
    )


def stop_in_force(job: Job, worker: Worker) -> WorkerStop | None:
    return WorkerStop.objects.filter(job=job, worker=worker, reversed_at__isnull=True).first()


def stop_message(stop: WorkerStop) -> str:
    """Why a stopped worker gets no more work in the job, in words they can read."""
    check = stop.quality_check
    return (
        f"Your answers in this job agree too rarely with the known answers and with other annotators' "
        f"(estimated accuracy {check.accuracy:.0%}, at most {check.high:.0%}; this job needs "
        f"{stop.bar:.0%}), so we are not offering you more work in it. Nothing you submitted has been "
        "rejected: a person will look at it, and may let you back in."
    )


def reverse_stop(stop_id: int, user: Any, note: str = "") -> WorkerStop:
    """A person lets a stopped worker work in the job again (the caller checks `reverse_workerstop`)."""
    with transaction.atomic():
        stop = WorkerStop.objects.select_for_update().get(pk=stop_id)
        if stop.reversed_at is not None:
            raise StopReversalError(f"this stop was already reversed on {stop.reversed_at:%Y-%m-%d %H:%M}")
        stop.reversed_at, stop.reversed_by, stop.reversal_note = timezone.now(), user, note[:500]
        stop.save(update_fields=["reversed_at", "reversed_by", "reversal_note"])
        told = None
        if stop.market_calls.filter(action=BlocklistAction.ADD).exists():
            told = _tell_market(stop, BlocklistAction.REMOVE)
        audit.record(
            user,
            AuditEvent.Action.WORKER_STOP_REVERSED,
            f"job {stop.job_id}",
            stop=stop.pk,
            worker=stop.worker.pseudonym or f"worker {stop.worker_id}",
            note=note[:500],
            market=_market_words(stop.job, told),
        )
    return stop


def _tell_market(stop: WorkerStop, action: str) -> BlocklistCall | None:
    """Record the market call that keeps the stopped worker from the job there (or lets them back),
    and queue it for a background operation once this transaction commits; None where the job's
    market keeps no blocklist of the job's (in-house: our own pages refuse the worker)."""
    if not stop.job.market_blocklist:
        return None
    call = BlocklistCall.objects.create(job=stop.job, worker=stop.worker, stop=stop, action=action)
    verb = "keep a stopped worker from" if action == BlocklistAction.ADD else "let a worker back into"
    start_operation(
        SEND_BLOCKLIST_CALLS, f"{verb} job {stop.job_id} at its market", {"call_ids": [call.pk]}, total=1
    )
    return call


def _market_words(job: Job, call: BlocklistCall | None) -> str:
    """What the audit trail says of the market: the call recorded, or why there is none."""
    if call is None:
        return f"no call: the job has no blocklist at {job.market}; our pages refuse the worker"
    return f"call {call.pk} recorded: {call.get_action_display()} at {job.market}"


# Money ---------------------------------------------------------------------------------------------
def paid_to_stopped(job: Job | None = None) -> Decimal:
    """Money the ledger shows paid (confirmed approvals at the HIT's reward, confirmed bonuses) to
    workers who were later stopped, in their jobs (one job, or all)."""
    stopped = WorkerStop.objects.filter(
        job_id=OuterRef("job_id"), worker_id=OuterRef("assignment__worker_id")
    )
    confirmed = LedgerEntry.objects.filter(Exists(stopped), state=RowState.CONFIRMED)
    if job is not None:
        confirmed = confirmed.filter(job=job)
    approved = confirmed.filter(kind=RowKind.APPROVE).aggregate(total=Sum("hit__reward"))["total"]
    bonuses = confirmed.filter(kind=RowKind.BONUS).aggregate(total=Sum("amount"))["total"]
    return (approved or Decimal("0.00")) + (bonuses or Decimal("0.00"))
