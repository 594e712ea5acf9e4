"""Worker quality per job: agreement with the majority, the label model's reliability, gold accuracy,
the flags they raise, and staff's soft block (annotation's own ``block_worker``), which reaches the
worker's market and so runs as a background operation, never in a web request."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db.models import QuerySet

from aggregation.models import AggregationRun, WorkerFlagReason, WorkerQuality
from aggregation.policy import AggregationPolicy, worker_flags
from aggregation.responses import Responses
from annotation.models import Job, Worker
from annotation.work.records import block_worker
from operations.services import start_operation


def record_worker_quality(
    job: Job,
    run: AggregationRun,
    policy: AggregationPolicy,
    responses: Responses,
    gold: Mapping[int, tuple[int, int]],
    agreement: npt.NDArray[np.float64],
    reliability: npt.NDArray[np.float64],
    confusion: npt.NDArray[np.float64] | None = None,
) -> int:
    """Replace the job's worker quality rows with this run's; returns how many workers are flagged.
    ``gold``: the job's ``gold_accuracy`` (annotation.work); ``confusion``: the label model's
    (workers × true × given) matrices on ``responses``' labels."""
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


def soft_block_reason(quality: WorkerQuality, by: Any = None) -> str:
    """Why a quality row's worker is soft-blocked: the job, its flags (or staff's decision) and who."""
    reasons = WorkerFlagReason  # labels read better in the worker's record than codes
    why = ", ".join(str(reasons(flag).label) for flag in quality.flags) or "staff decision"
    who = f" by {by}" if by is not None else ""
    return f"job {quality.job_id}: {why}{who}"


def soft_block(qualities: Iterable[WorkerQuality], *, by: Any = None) -> list[Worker]:
    """Keep the workers of these quality rows from future jobs (here and at their market)."""
    return [block_worker(quality.worker_id, soft_block_reason(quality, by)) for quality in qualities]


def request_soft_block(qualities: QuerySet[WorkerQuality], *, by: Any = None) -> int:
    """Queue the soft block of these rows' workers not blocked yet, as a background operation (it
    reaches their market: never in a web request); returns how many workers are queued."""
    reasons: dict[str, str] = {}
    for quality in qualities.filter(worker__blocked=False).order_by("pk"):
        reasons.setdefault(str(quality.worker_id), soft_block_reason(quality, by))
    if reasons:
        params = {"worker_ids": [int(pk) for pk in reasons], "reason": "", "reasons": reasons}
        start_operation("annotation.block_workers", "Soft-block workers", params, total=len(reasons), user=by)
    return len(reasons)


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _confusion(responses: Responses, confusion: npt.NDArray[np.float64] | None, w: int) -> dict[str, Any]:
    if confusion is None:
        return {}
    return {"labels": list(responses.label_set.labels), "matrix": np.round(confusion[w], 4).tolist()}
