"""`manage.py run_pipeline` says each step as it ends, while the later steps are still to run."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from pipeline.definition import STEPS
from pipeline.models import StepRun, StepState
from tests.pipeline.test_pipeline import run_params  # noqa: F401  # the fixture

pytestmark = pytest.mark.django_db


class StepsDoneWhenWritten(io.StringIO):
    """Output that notes, for each line written, how many steps the database held done just then."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[str, int]] = []

    def write(self, text: str) -> int:
        if text.startswith("  "):
            self.heard.append(
                (text.split(":")[0].strip(), StepRun.objects.filter(state=StepState.DONE).count())
            )
        return super().write(text)


def test_each_step_is_said_as_it_ends(run_params: dict) -> None:  # noqa: F811
    out = StepsDoneWhenWritten()

    call_command("run_pipeline", "--params", json.dumps(run_params), stdout=out)

    assert out.heard == [(step.name, number) for number, step in enumerate(STEPS, start=1)]
