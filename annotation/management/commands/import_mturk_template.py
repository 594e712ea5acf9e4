"""manage.py import_mturk_template TEMPLATE.html BATCH.csv --name NAME [--trusted] [--market P]"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.work.mturk_batches import MTurkBatchError, import_mturk_template


class Command(BaseCommand):
    help = "Store an MTurk layout template and its batch CSV as a draft job whose items are the CSV rows."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("template", type=Path, help="the MTurk layout template (HTML)")
        parser.add_argument("batch", type=Path, help="the batch CSV: a header row naming the ${variables}")
        parser.add_argument("--name", required=True, help="the template's name on the platform")
        parser.add_argument(
            "--trusted",
            action="store_true",
            help="show the template as written, its scripts run (default: sanitised)",
        )
        parser.add_argument("--market", default="inhouse")
        parser.add_argument("--workers", type=int, help="workers per row (MTurk's MaxAssignments)")
        parser.add_argument("--reward", help="reward per row")

    def handle(self, *args: Any, **options: Any) -> None:
        params = {
            name: options[option]
            for name, option in (("workers_per_item", "workers"), ("reward", "reward"))
            if options[option] is not None
        }
        try:
            job = import_mturk_template(
                options["template"],
                options["batch"],
                options["name"],
                trusted=options["trusted"],
                market=options["market"],
                params=params,
            )
        except MTurkBatchError as error:
            raise CommandError(str(error)) from error
        trust = "trusted" if options["trusted"] else "sanitised"
        self.stdout.write(f"job {job.pk} (draft): {job.items.count()} rows of {options['name']!r} ({trust})")
