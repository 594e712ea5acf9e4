"""Try a failed ledger row again: a new attempt (its own row and token) whose call is made now."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.ledger import engine, intents
from annotation.ledger.models import LedgerEntry


class Command(BaseCommand):
    help = "Retry failed ledger rows as new attempts and make their market calls."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("entry_ids", nargs="+", type=int, help="ids of failed ledger rows")

    def handle(self, *args: Any, **options: Any) -> None:
        for entry_id in options["entry_ids"]:
            try:
                attempt = intents.retry(entry_id)
            except (LedgerEntry.DoesNotExist, intents.RetryError) as error:
                raise CommandError(f"ledger row {entry_id}: {error}") from error
            done = engine.execute(attempt.pk)
            self.stdout.write(
                f"ledger row {entry_id}: attempt {done.attempt} is {done.state} {done.error}".rstrip()
            )
