from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backups.errors import BackupError
from backups.services import restore_backup


class Command(BaseCommand):
    help = (
        "Restore backup directory BACKUP (from `manage.py backup`) into an empty database and releases "
        "directory (by default the configured ones), all or nothing: the releases are unpacked and "
        "verified first, the database restored in one transaction, then the releases moved into place."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("backup", type=Path)
        parser.add_argument("--database-url", help="restore into this database instead of DATABASE_URL's")
        parser.add_argument("--releases-dir", type=Path, help="instead of RELEASES_DIR")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="overwrite a database that has tables; set a non-empty releases directory aside",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        backup: Path = options["backup"]
        if not backup.is_dir():
            raise CommandError(f"{backup}: not a directory")
        database = None
        if options["database_url"]:
            try:
                database = dj_database_url.parse(options["database_url"])
            except ValueError as error:
                raise CommandError(f"--database-url: {error}") from None
        try:
            restored = restore_backup(
                backup, database=database, releases_dir=options["releases_dir"], replace=options["replace"]
            )
        except BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"restored database {restored.database} and {len(restored.releases)} verified release(s) "
            f"into {restored.releases_dir}"
        )
        for note in restored.notes:
            self.stdout.write(note)
