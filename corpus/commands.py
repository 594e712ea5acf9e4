"""A base for management commands whose --version names a release, not Django's version."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class ReleaseVersionCommand(BaseCommand):
    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        # Let our --version (the release's) replace Django's built-in --version flag.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)
