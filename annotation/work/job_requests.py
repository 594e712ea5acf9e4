"""A job as a person asks for it, from the `create_job` command or the new-job page: one set of checks
and one set of messages, so the page refuses exactly what the command refuses, in the same words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction

from annotation.models import Job
from annotation.task_types.base import TaskTypeError
from annotation.work.cost_checks import CostEstimate, estimate_cost_locally
from annotation.work.job_errors import JobError
from annotation.work.jobs import check_workers_per_item, create_job
from annotation.work.machine_forecasts import check_machine_forecast


@dataclass(frozen=True)
class JobRequest:
    """What a person asks for: the task type, the filters choosing the items, the market and settings."""

    task_type: str
    filters: Mapping[str, Any]
    market: str = "inhouse"
    params: Mapping[str, Any] | None = None
    budget: Decimal | None = None
    name: str = ""
    allow_single_worker: bool = False


@dataclass(frozen=True)
class Forecast:
    """What a request would make, counted on a draft that was rolled back: nothing is kept."""

    items: int
    hits: int
    workers_per_item: int
    currency: str
    estimate: CostEstimate


class _RollBack(Exception):
    """Raised inside the forecast's transaction so that the draft job is never kept."""


def request_params(
    *,
    workers: int | None = None,
    bundle: int | None = None,
    reward: str | Decimal | None = None,
    gold_per_hit: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The task-type parameters a person named (left out: the task type's defaults stand)."""
    named = {"workers_per_item": workers, "groups_per_hit": bundle, "gold_per_hit": gold_per_hit}
    params: dict[str, Any] = {name: value for name, value in named.items() if value is not None}
    if reward is not None:
        params["reward"] = str(reward)
    params.update(extra or {})
    return params


@transaction.atomic
def open_job(request: JobRequest, *, created_by: Any = None) -> Job:
    """Create the draft job asked for, or raise JobError with the reason a person reads. A job with a
    machine beside the crowd whose forecast exceeds its budget is refused (and not kept)."""
    try:
        if not request.allow_single_worker:
            check_workers_per_item(request.task_type, request.params)
        job = create_job(
            request.task_type,
            request.filters,
            market=request.market,
            params=request.params,
            budget=request.budget,
            name=request.name,
            created_by=created_by,
        )
        check_machine_forecast(job)
        return job
    except JobError:
        raise
    except (TaskTypeError, ValueError, LookupError) as error:
        # An unknown task type or market, a parameter of the wrong kind: the task type's own words.
        raise JobError(str(error)) from error


def forecast_job(request: JobRequest) -> Forecast:
    """What `open_job` would create and can cost at most, from our own records (no market call); the
    draft is made and rolled back, so the figures are the very ones saving would give."""
    found: list[Forecast] = []
    try:
        with transaction.atomic():
            job = open_job(request)
            found.append(
                Forecast(
                    items=job.items.filter(is_gold=False).count(),
                    hits=job.hits.count(),
                    workers_per_item=job.workers_per_item,
                    currency=job.currency,
                    estimate=estimate_cost_locally(job),
                )
            )
            raise _RollBack
    except _RollBack:
        pass
    return found[0]
