"""Celery tasks: thin, by id. Aggregation is idempotent, so a task run twice leaves the same corpus."""

from __future__ import annotations

import logging
from typing import Any

from aggregation import services
from aggregation.models import RunTrigger
from annotation.models import Job
from config.celery import app

log = logging.getLogger(__name__)


@app.task(name="aggregation.aggregate_job", soft_time_limit=20 * 60, time_limit=25 * 60)
def aggregate_job_task(
    job_id: int, trigger: str = RunTrigger.MANUAL, overrides: dict[str, Any] | None = None
) -> int | None:
    """Aggregate a job; a job that cannot be aggregated is recorded as a failed run, not retried.
    A completion is aggregated once, however often it is delivered (and not again after the pipeline)."""
    once = trigger == RunTrigger.COMPLETION
    try:
        return services.aggregate_job(job_id, trigger=trigger, overrides=overrides, once=once).run_id
    except services.AggregationError as error:
        # Retrying cannot help (the data is what it is); the failed run row tells staff why.
        log.warning("aggregation of job %s failed: %s", job_id, error)
        return None


def request_aggregation(job_id: int, trigger: str = RunTrigger.COMPLETION) -> None:
    """Aggregate once the current transaction commits (a job's completion, a staff request); jobs
    whose task type has nothing to aggregate (paraphrase writing) are left alone."""
    task_type = Job.objects.filter(pk=job_id).values_list("task_type", flat=True).first()
    if task_type is None or not services.has_aggregation(task_type):
        return
    aggregate_job_task.delay_on_commit(job_id, trigger)  # type: ignore[attr-defined]  # not in celery-types


@app.task(name="aggregation.next_round", soft_time_limit=20 * 60, time_limit=25 * 60)
def next_round_task(job_id: int) -> int:
    """A completed round of an adaptive job: publish the open items' next HITs, or, with none open
    (or the budget spent), aggregate the job. Returns how many HITs it published."""
    from aggregation.adaptive_rounds import next_round

    report = next_round(job_id)
    if report.new_hits == 0:
        if report.refused:
            log.warning(
                "job %s: %s open items get no more labels: %s", job_id, report.open_items, report.refused
            )
        request_aggregation(job_id)
    return report.new_hits


def request_next_round(job_id: int) -> None:
    """Decide an adaptive job's next round once the current transaction (its completion) commits."""
    next_round_task.delay_on_commit(job_id)  # type: ignore[attr-defined]  # not in celery-types
