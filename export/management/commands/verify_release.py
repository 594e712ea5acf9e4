from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from export.verify import verify_release


class Command(BaseCommand):
    help = "Check release directory DIR against its manifest (sha256, bytes) and its JSON Schemas."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)

    def handle(self, *args: Any, directory: Path, **options: Any) -> None:
        if not directory.is_dir():
            raise CommandError(f"{directory}: not a directory")
        problems = verify_release(directory)
        for problem in problems:
            self.stderr.write(str(problem))
        if problems:
            raise CommandError(f"{directory}: {len(problems)} problem(s)")
        self.stdout.write(f"{directory}: verified against its manifest and schemas")
