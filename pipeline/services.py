"""Create pipeline runs and run their steps, one at a time or all in order."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from pipeline.context import Context, StepError
from pipeline.definition import step
from pipeline.models import PipelineRun, StepRun, StepState
from pipeline.runs import save_new_run
from pipeline.steps import STEP_FUNCTIONS

log = logging.getLogger(__name__)

StepReport = Callable[[StepRun], None]


class PipelineError(RuntimeError):
    """A step cannot run (an earlier step is not done) or failed."""


def create_run(name: str, params: dict[str, Any] | None = None) -> PipelineRun:
    """A new run with every step pending; `params` override the definition's defaults."""
    with transaction.atomic():
        run = PipelineRun(name=name)
        save_new_run(run, params)
    return run


def run_step(run_id: int, name: str) -> StepRun:
    """Run (or continue) one step; earlier steps must be done. Failures are recorded, then raised."""
    step(name)
    run = PipelineRun.objects.get(pk=run_id)
    current = run.steps.filter(name=name).first()
    if current is None:
        raise PipelineError(f"run {run.pk} has no step {name}: it was made before the step existed")
    blocking = run.steps.filter(position__lt=current.position).exclude(state=StepState.DONE).first()
    if blocking is not None:
        raise PipelineError(f"step {name} waits for {blocking.name} ({blocking.state})")
    if current.state == StepState.DONE:
        return current
    current.state, current.started, current.message = StepState.RUNNING, current.started or timezone.now(), ""
    current.save(update_fields=["state", "started", "message"])
    context = Context(current, dict(run.params))
    try:
        outcome = STEP_FUNCTIONS[name](context)
    except (StepError, ValueError, RuntimeError) as error:
        log.exception("pipeline %s step %s failed", run.pk, name)
        current.state, current.message = StepState.FAILED, f"{type(error).__name__}: {error}"
        current.save(update_fields=["state", "message"])
        raise PipelineError(f"step {name}: {error}") from error
    if context.params != run.params:  # a step may fill in parameters (the crawl's claims)
        PipelineRun.objects.filter(pk=run.pk).update(params=context.params, updated=timezone.now())
    current.refresh_from_db(fields=["output"])
    current.state, current.message = outcome.state, outcome.message
    current.output = {**current.output, **outcome.output}
    current.finished = timezone.now() if outcome.state == StepState.DONE else None
    current.save(update_fields=["state", "message", "output", "finished"])
    return current


def run_all(run_id: int, on_step_end: StepReport | None = None) -> list[StepRun]:
    """Run the steps in order until one is waiting for a crowd or an expert, or all are done.

    `on_step_end` hears of each step as it ends, so a caller can say so while the next one runs.
    The run's own steps: a run made before a step was added goes on without it."""
    done = []
    names = StepRun.objects.filter(run_id=run_id).order_by("position").values_list("name", flat=True)
    for name in list(names):
        result = run_step(run_id, name)
        done.append(result)
        if on_step_end is not None:
            on_step_end(result)
        if result.state != StepState.DONE:
            break
    return done
