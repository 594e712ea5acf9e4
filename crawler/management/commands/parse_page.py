"""`manage.py parse_page <site> FILE...`: parse saved pages from disk, print one JSON debate per line.

No network, no database: this is the spiders' own extraction, for debugging a page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crawler.parsing import SITES, BadPageError, parse_debate


class Command(BaseCommand):
    help = "Parse saved debate pages and print each extracted debate as one JSON object per line."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("site", choices=SITES)
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--url", default="", help="the page's URL when it has no canonical link")

    def handle(self, *args: Any, **options: Any) -> None:
        failures = 0
        for path in options["files"]:
            try:
                html = path.read_bytes()
            except OSError as error:
                raise CommandError(f"{path}: {error}") from None
            try:
                record = parse_debate(options["site"], html, options["url"] or path.resolve().as_uri())
            except BadPageError as error:
                failures += 1
                self.stderr.write(f"{path}: dropped: {error}")
                continue
            self.stdout.write(json.dumps(record.public(), ensure_ascii=False))
        if failures == len(options["files"]):
            raise CommandError("no page held a debate")
