"""manage.py export_mturk_batch JOB --out results.csv: MTurk's batch-results CSV for a template job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.work.mturk_batches import MTurkBatchError, export_mturk_batch


class Command(BaseCommand):
    help = "Write an MTurk template job's answers as MTurk's batch-results CSV (workers as pseudonyms)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument("--out", type=Path, required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            rows = export_mturk_batch(options["job"], options["out"])
        except MTurkBatchError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"{rows} result rows written to {options['out']}")
