from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from config.progress import shown_on
from corpus.commands import ReleaseVersionCommand
from corpus.download import DownloadError, download_release
from corpus.perspectrum import ReleaseFormatError
from corpus.services import import_perspectrum


class Command(ReleaseVersionCommand):
    help = (
        "Import a PERSPECTRUM release directory. Idempotent; never overwrites the platform's work (conflicts "
        "are reported); a broken file is rejected, nothing written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", nargs="?", type=Path, help="the release directory")
        parser.add_argument("--version", help="release version, e.g. 1.0 (default: detected from file names)")
        parser.add_argument(
            "--download",
            action="store_true",
            help="first fetch the v1.0 files from the official CogComp/perspectrum repository into DIRECTORY",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="print what the import would change and write nothing"
        )

    def handle(
        self,
        *args: Any,
        directory: Path | None,
        version: str | None,
        download: bool,
        dry_run: bool = False,
        **options: Any,
    ) -> None:
        if directory is None:
            raise CommandError("name the release directory")
        try:
            if download:
                for line in download_release(directory):
                    self.stdout.write(line)
            report = import_perspectrum(directory, version, progress=shown_on(self.stderr), dry_run=dry_run)
        except (ReleaseFormatError, DownloadError) as error:
            raise CommandError(f"{error} (nothing was written)") from None
        self.stdout.write(f"PERSPECTRUM v{report.version} from {directory}:")
        for line in report.lines():
            self.stdout.write(f"  {line}")
        if dry_run:
            self.stdout.write("  dry run: nothing was written")
        else:
            self.stdout.write("  nothing changed" if not report.changed else "  done")
