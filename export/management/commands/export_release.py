from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from corpus.commands import ReleaseVersionCommand
from export.services import export_perspectrum


class Command(ReleaseVersionCommand):
    help = "Write the corpus as PERSPECTRUM release files (perspectrum_with_answers_vV.json and the rest)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--version", required=True, help="release version, e.g. 1.0")
        parser.add_argument("--out", required=True, type=Path, help="output directory")

    def handle(self, *args: Any, version: str, out: Path, **options: Any) -> None:
        for kind, path in export_perspectrum(version, out).items():
            self.stdout.write(f"{kind}: {path} ({path.stat().st_size} bytes)")
