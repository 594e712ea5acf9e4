from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from config.whole_files import WriteError
from corpus.commands import ReleaseVersionCommand
from export.exporting import ReleaseCopyError, export_version
from export.services import ReleaseExistsError, ReleaseVersionError


class Command(ReleaseVersionCommand):
    help = (
        "Write a version's PERSPECTRUM files (perspectrum_with_answers_vV.json and the rest): a released "
        "version's stored files, checked against its manifest; a version not yet released from the database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--version", required=True, help="release version, e.g. 1.0")
        parser.add_argument("--out", required=True, type=Path, help="output directory")
        parser.add_argument(
            "--without-machine-labels",
            action="store_true",
            help="refuse a release that holds machine annotators' labels",
        )

    def handle(self, *args: Any, version: str, out: Path, **options: Any) -> None:
        try:
            exported = export_version(version, out, machine_labels=not options["without_machine_labels"])
        except (ReleaseCopyError, ReleaseExistsError, ReleaseVersionError, WriteError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(exported.sentence(out))
        for path in exported.files.values():
            self.stdout.write(f"  {path.name}: {path.stat().st_size:,} bytes")
