"""`manage.py rebuild_index [--kind perspective ...]`: refill search indexes from the corpus."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from config.progress import shown_on
from search.base import Kind
from search.services import INDEXED_KINDS, rebuild_index


class Command(BaseCommand):
    help = "Empty and rebuild the search indexes (perspectives, evidence, claims) from the corpus."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--kind",
            action="append",
            choices=[str(k) for k in INDEXED_KINDS],
            help="only this kind (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        kinds = [Kind(k) for k in options["kind"]] if options["kind"] else INDEXED_KINDS
        for kind, count in rebuild_index(kinds, progress=shown_on(self.stderr)).items():
            self.stdout.write(f"{kind}: {count} documents indexed")
