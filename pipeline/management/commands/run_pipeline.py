"""`manage.py run_pipeline [--run ID] [--step NAME] [--market P] [--params JSON]`."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline import services
from pipeline.definition import STEP_NAMES, PipelineDefinitionError
from pipeline.models import PipelineRun, StepRun


class Command(BaseCommand):
    help = "Run the PERSPECTRUM pipeline: all steps in order (until one waits), or one step of a run."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--run", type=int, help="continue this pipeline run (default: a new one)")
        parser.add_argument("--step", choices=STEP_NAMES, help="run only this step")
        parser.add_argument("--name", default="pipeline", help="name of a new run")
        parser.add_argument("--params", default="{}", help='JSON overrides, e.g. {"market": "inhouse"}')

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["run"]:
                run = PipelineRun.objects.get(pk=options["run"])
            else:
                run = services.create_run(options["name"], json.loads(options["params"]))
                self.stdout.write(f"created {run}")
            if options["step"]:
                self._say_step(services.run_step(run.pk, options["step"]))
            else:
                services.run_all(run.pk, on_step_end=self._say_step)
        except (PipelineRun.DoesNotExist, json.JSONDecodeError, PipelineDefinitionError) as error:
            raise CommandError(str(error)) from None
        except services.PipelineError as error:
            raise CommandError(
                f"{error} (run {options['run'] or 'new'}; fix and run the step again)"
            ) from None

    def _say_step(self, step: StepRun) -> None:
        """Each step as it ends, shown now even through a pipe."""
        self.stdout.write(f"  {step.name}: {step.state} — {step.message}")
        self.stdout.flush()
