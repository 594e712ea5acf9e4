"""manage.py export_counter_speech JOB --out FILE.csv"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.work.counter_speeches import COLUMNS, CounterSpeechExportError, counter_speech_rows


class Command(BaseCommand):
    help = "Write a counter-speech job's results as CSV: one row per question, with accuracy and reasons."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument("--out", type=Path, required=True, help="the CSV file to write")

    def handle(self, *args: Any, **options: Any) -> None:
        out: Path = options["out"]
        if not out.parent.is_dir():
            raise CommandError(f"no directory {out.parent} to write {out.name} into")
        try:
            rows = counter_speech_rows(options["job"])
        except CounterSpeechExportError as error:
            raise CommandError(str(error)) from error
        pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(out, index=False)
        self.stdout.write(f"job {options['job']}: {len(rows)} questions written to {out}")
