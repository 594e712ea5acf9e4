"""A second `make run` says which steps it reused, and the release step names every release there is
now, not only the demo's first one as if it were the latest."""

from __future__ import annotations

from io import StringIO

import pytest

from export.models import Release
from pipeline import services
from pipeline.demo import DEMO_NAME, done_steps
from pipeline.management.commands.setup_demo import Command
from pipeline.models import StepRun, StepState

pytestmark = pytest.mark.django_db


def told(step: StepRun) -> str:
    out = StringIO()
    command = Command(stdout=out)
    command._reused = done_steps()
    command._say_step(step)
    return out.getvalue()


def test_a_step_done_before_is_said_to_be_reused_with_the_releases_there_are_now() -> None:
    run = services.create_run(DEMO_NAME, {"market": "simulated"})
    run.steps.filter(name="release").update(state=StepState.DONE, message="release demo-1: 21 files")
    for version in ("demo-1", "demo-2"):
        Release.objects.create(version=version, directory=version)

    said = told(run.steps.get(name="release"))

    reused = "  release: reused — done before (release demo-1: 21 files)"
    assert said == f"{reused}; releases now: demo-1, demo-2\n"


def test_a_step_done_in_this_run_is_said_to_be_done() -> None:
    run = services.create_run(DEMO_NAME, {"market": "simulated"})
    step = run.steps.get(name="release")
    step.state, step.message = StepState.DONE, "release demo-1: 21 files"  # done just now, not before

    assert told(step) == "  release: done — release demo-1: 21 files\n"
