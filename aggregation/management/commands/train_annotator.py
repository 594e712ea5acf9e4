"""`manage.py train_annotator TASK (--from-jobs 3,4 | --from-splits train,dev) [--name NAME]`: train a
new version of the local machine annotator on the kept decisions of those jobs, or (stance) on the
corpus's decided stances of the claims of those splits, and report its cross-validated accuracy and
calibration."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.machine_training import TrainingReport, train_from_splits, train_local
from annotation.machines.services import MachineError
from annotation.task_types.base import TaskTypeError
from corpus.models import Split


def job_ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(f"--from-jobs takes job ids, comma-separated: not {text!r}") from None
    if not ids:
        raise CommandError("--from-jobs needs at least one job id")
    return ids


def split_names(text: str) -> list[str]:
    splits = [part.strip() for part in text.split(",") if part.strip()]
    unknown = sorted(set(splits) - set(Split.values))
    if not splits or unknown:
        raise CommandError(
            f"--from-splits takes splits among {', '.join(Split.values)}, comma-separated: not {text!r}"
        )
    return splits


class Command(BaseCommand):
    help = (
        "Train the local machine annotator of a task type on the kept decisions of some jobs, or (stance) "
        "on the corpus's decided stances of the claims of some splits; it never labels an item it was "
        "trained on."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("task_type")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--from-jobs", help="job ids, comma-separated")
        source.add_argument(
            "--from-splits",
            help="for a task type that reads a claim and a perspective (stance): the corpus's splits "
            "(train, dev, test), comma-separated, whose claims' decided stances (each kept or "
            "adjudicated cluster's side) train it",
        )
        parser.add_argument("--name", help="the machine's name (default: local-TASK)")

    def handle(self, *args: Any, **options: Any) -> None:
        task_type = options["task_type"]
        name = options["name"] or f"local-{task_type}"
        try:
            report = self.train(name, task_type, options)
        except (MachineError, TaskTypeError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(report.describe())

    def train(self, name: str, task_type: str, options: dict[str, Any]) -> TrainingReport:
        if options["from_jobs"] is not None:
            return train_local(name, task_type, job_ids(options["from_jobs"]))
        return train_from_splits(name, task_type, split_names(options["from_splits"]))
