"""Worker quality per job: agreement with the majority, the label model's reliability, gold accuracy,
the flags they raise, and staff's soft block (annotation's own ``block_worker``), which reaches the
worker's market and so runs as a background operation, never in a web request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db.models import QuerySet

from aggregation.models import AggregationRun, WorkerFlagReason, WorkerQuality
from aggregation.policy import AggregationPolicy, worker_flags
from aggregation.responses import Responses
from annotation.models import Job, Worker
from annotation.work import block_worker, gold_accuracy
from annotation.work.market_actions import each
from operations.registry import Progress, register
from operations.services import start_operation


def record_worker_quality(
    job: Job,
    run: AggregationRun,
    policy: AggregationPolicy,
    responses: Responses,
    agreement: npt.NDArray[np.float64],
    reliability: npt.NDArray[np.float64],
    confusion: npt.NDArray[np.float64] | None = None,
) -> int:
    """Replace the job's worker quality rows with this run's; returns how many workers are flagged.
    ``confusion``: the label model's (workers × true × given) matrices on ``responses``' labels."""
    gold = gold_accuracy(job)
    worker_ids = [int(w) for w in responses.workers.tolist()]
    answered = np.array([gold.get(w, (0, 0))[0] for w in worker_ids], dtype=np.int64)
    correct = np.array([gold.get(w, (0, 0))[1] for w in worker_ids], dtype=np.int64)
    given = responses.responses_per_worker()
    flags = worker_flags(policy, given, agreement, reliability, answered, correct)
    WorkerQuality.objects.filter(job=job).delete()
    WorkerQuality.objects.bulk_create(
        [
            WorkerQuality(
                job=job,
                worker_id=worker,
                run=run,
                responses=int(given[w]),
                agreement=_number(agreement[w]),
                reliability=_number(reliability[w]),
                gold_answered=int(answered[w]),
                gold_correct=int(correct[w]),
                flags=flags[w],
                flagged=bool(flags[w]),
                confusion=_confusion(responses, confusion, w),
            )
            for w, worker in enumerate(worker_ids)
        ],
        batch_size=1000,
    )
    return sum(1 for flagged in flags if flagged)


def soft_block(qualities: Iterable[WorkerQuality], *, by: Any = None) -> list[Worker]:
    """Keep the workers of these quality rows from future jobs (here and at their market)."""
    blocked = []
    for quality in qualities:
        reasons = WorkerFlagReason  # labels read better in the worker's record than codes
        why = ", ".join(str(reasons(flag).label) for flag in quality.flags) or "staff decision"
        who = f" by {by}" if by is not None else ""
        blocked.append(block_worker(quality.worker_id, f"job {quality.job_id}: {why}{who}"))
    return blocked


def block_flagged_workers(job_id: int, *, by: Any = None) -> list[Worker]:
    """Soft-block every worker the job's latest aggregation flagged and who is not blocked yet."""
    flagged = WorkerQuality.objects.filter(job_id=job_id, flagged=True, worker__blocked=False)
    return soft_block(flagged, by=by)


def request_soft_block(qualities: QuerySet[WorkerQuality], *, by: Any = None) -> int:
    """Queue the soft block of these rows' workers not blocked yet, as a background operation (it
    reaches their market); returns how many are queued."""
    ids = list(qualities.filter(worker__blocked=False).order_by("pk").values_list("pk", flat=True))
    if ids:
        params = {"quality_ids": ids, "by": str(by) if by is not None else ""}
        kind = "aggregation.soft_block_workers"
        start_operation(kind, "Soft-block workers", params, total=len(ids), user=by)
    return len(ids)


@register("aggregation.soft_block_workers")
def soft_block_workers(progress: Progress, quality_ids: list[int], by: str = "") -> None:
    qualities = WorkerQuality.objects.filter(pk__in=quality_ids).order_by("pk")
    each(progress, qualities, lambda quality: f"{soft_block([quality], by=by or None)[0]} blocked")


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _confusion(responses: Responses, confusion: npt.NDArray[np.float64] | None, w: int) -> dict[str, Any]:
    if confusion is None:
        return {}
    return {"labels": list(responses.label_set.labels), "matrix": np.round(confusion[w], 4).tolist()}
