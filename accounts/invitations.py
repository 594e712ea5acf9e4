"""Signed, expiring, single-use invitation links that bring a person into a team."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent, Invitation, Team

SALT = "accounts.invitation"
DURATION = re.compile(r"^(\d{1,4})([dh])$")


class InvitationError(ValueError):
    """A link that is forged, used already or expired."""


def parse_duration(text: str) -> timedelta:
    """ "7d" or "12h"."""
    found = DURATION.match(text.strip())
    if not found or int(found.group(1)) == 0:
        raise InvitationError(f"{text!r}: give days or hours, e.g. 7d or 12h")
    amount, unit = int(found.group(1)), found.group(2)
    return timedelta(days=amount) if unit == "d" else timedelta(hours=amount)


def create_invitations(team: Team, count: int, valid_for: timedelta, *, by: Any = None) -> list[Invitation]:
    if not 1 <= count <= 1000:
        raise InvitationError("invite between 1 and 1000 people at a time")
    expires = timezone.now() + valid_for
    user = by if getattr(by, "pk", None) else None
    made = [Invitation.objects.create(team=team, created_by=user, expires=expires) for _ in range(count)]
    audit.record(by, AuditEvent.Action.INVITED, f"team {team.name}", count=count, expires=expires.isoformat())
    return made


def token(invitation: Invitation) -> str:
    return signing.dumps(invitation.pk, salt=SALT)


def invitation_url(invitation: Invitation, base_url: str = "") -> str:
    """The link to hand out: under `base_url`, else PUBLIC_URL, never the Host a request claims."""
    path = reverse("annotation:join", args=[token(invitation)])
    return (base_url or settings.PUBLIC_URL).rstrip("/") + path


def revoke(invitation: Invitation) -> bool:
    """End an unused invitation now (its link then says it expired); whether it was still open."""
    now = timezone.now()
    return bool(
        Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True, expires__gt=now).update(expires=now)
    )


def open_invitation(value: str) -> Invitation:
    """The invitation a link names, if it can still be used."""
    try:
        pk = signing.loads(value, salt=SALT)
    except signing.BadSignature:
        raise InvitationError("this invitation link is not valid") from None
    found = Invitation.objects.select_related("team").filter(pk=pk).first()
    if found is None or found.used_at is not None:
        raise InvitationError("this invitation has been used already")
    if found.expires <= timezone.now():
        raise InvitationError("this invitation has expired; ask for a new one")
    return found


def accept(value: str, username: str, password: str) -> User:
    """Use the invitation once (the database decides who is first), make the account, join the team."""
    invitation = open_invitation(value)
    now = timezone.now()
    with transaction.atomic():
        claimed = Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True, expires__gt=now).update(
            used_at=now
        )
        if not claimed:
            raise InvitationError("this invitation has been used already")
        user = User.objects.create_user(username, password=password)
        Invitation.objects.filter(pk=invitation.pk).update(used_by=user)
        invitation.team.members.add(user)
        audit.record(user, AuditEvent.Action.JOINED, f"team {invitation.team.name}", invitation=invitation.pk)
    return user
