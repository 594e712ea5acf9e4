from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from backups.errors import BackupError
from backups.services import create_backup


def positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number


class Command(BaseCommand):
    help = (
        "Back up PostgreSQL (pg_dump, custom format) and the releases directory into one new directory "
        "under BACKUP_DIR, then keep only the newest BACKUP_KEEP backups."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", type=Path, help="where backups go (default: BACKUP_DIR)")
        parser.add_argument("--keep", type=positive, help="how many backups to keep (default: BACKUP_KEEP)")

    def handle(self, *args: Any, dir: Path | None, keep: int | None, **options: Any) -> None:
        try:
            backup = create_backup(dir, keep)
        except BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"backup written to {backup.path} ({backup.release_files} release files)")
        for path in backup.pruned:
            self.stdout.write(f"removed old backup {path}")
