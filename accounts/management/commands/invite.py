"""manage.py invite TEAM --count N --expires 7d: print N single-use links that join TEAM."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.invitations import InvitationError, create_invitations, invitation_url, parse_duration
from accounts.models import Team


class Command(BaseCommand):
    help = "Create signed, expiring, single-use invitation links for a team (made if it does not exist)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("team")
        parser.add_argument("--count", type=int, default=1)
        parser.add_argument("--expires", default="7d", help="how long the links work: 7d, 12h, …")
        parser.add_argument(
            "--base-url",
            default=None,
            help="where people reach the platform (default: the PUBLIC_URL setting)",
        )

    def handle(
        self, *args: Any, team: str, count: int, expires: str, base_url: str | None, **options: Any
    ) -> None:
        name = team.strip()
        if not name or len(name) > 100:
            raise CommandError("name the team (at most 100 characters)")
        try:
            valid_for = parse_duration(expires)
            found, made = Team.objects.get_or_create(name=name)
            invitations = create_invitations(found, count, valid_for)
        except InvitationError as error:
            raise CommandError(str(error)) from None
        if made:
            self.stderr.write(f"team {name!r} created")
        for invitation in invitations:
            self.stdout.write(invitation_url(invitation, base_url or ""))
