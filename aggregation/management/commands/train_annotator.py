"""`manage.py train_annotator TASK --from-jobs 3,4 [--name NAME]`: train a new version of the local
machine annotator on the kept decisions of those jobs, and report its cross-validated accuracy and
calibration."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.machine_training import train_local
from annotation.machines.services import MachineError
from annotation.task_types.base import TaskTypeError


def job_ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(f"--from-jobs takes job ids, comma-separated: not {text!r}") from None
    if not ids:
        raise CommandError("--from-jobs needs at least one job id")
    return ids


class Command(BaseCommand):
    help = (
        "Train the local machine annotator of a task type on the kept decisions of some jobs; it never "
        "labels an item it was trained on."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("task_type")
        parser.add_argument("--from-jobs", required=True, help="job ids, comma-separated")
        parser.add_argument("--name", help="the machine's name (default: local-TASK)")

    def handle(self, *args: Any, **options: Any) -> None:
        task_type = options["task_type"]
        try:
            report = train_local(
                options["name"] or f"local-{task_type}", task_type, job_ids(options["from_jobs"])
            )
        except (MachineError, TaskTypeError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(report.describe())
