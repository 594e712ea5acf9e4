"""manage.py export_counter_speech JOB --out FILE.csv"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.work.counter_speeches import COLUMNS, CounterSpeechExportError, counter_speech_rows
from config.csv_files import write_csv
from config.whole_files import WriteError


class Command(BaseCommand):
    help = "Write a counter-speech job's results as CSV: one row per question, with accuracy and reasons."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument("--out", type=Path, required=True, help="the CSV file to write")

    def handle(self, *args: Any, **options: Any) -> None:
        out: Path = options["out"]
        try:
            rows = counter_speech_rows(options["job"])
            write_csv(out, list(COLUMNS), ([row.get(name) for name in COLUMNS] for row in rows))
        except (CounterSpeechExportError, WriteError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"job {options['job']}: {len(rows)} questions written to {out}")
