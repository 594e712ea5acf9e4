"""A new pipeline run: its parameters merged with the defaults, and its steps, all pending.

Apart from pipeline.services, which loads every step's code, so that the admin's add form saves a run
without loading the steps.
"""

from __future__ import annotations

from typing import Any

from annotation.market_interface.registry import is_simulated
from pipeline.definition import STEPS, merged_params
from pipeline.models import PipelineRun, StepRun


def save_new_run(run: PipelineRun, params: dict[str, Any] | None) -> None:
    """Save an unsaved run with its merged parameters and its pending steps (used by the admin too)."""
    run.params = merged_params(params)
    run.simulated = is_simulated(run.params["market"])
    run.save()
    StepRun.objects.bulk_create(
        [StepRun(run=run, name=definition.name, position=n) for n, definition in enumerate(STEPS)]
    )
