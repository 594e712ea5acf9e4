"""The audit trail: one call per action that spends money or changes the corpus."""

from __future__ import annotations

from typing import Any

from accounts.models import AuditEvent


def record(actor: Any, action: str, target: object, **detail: Any) -> AuditEvent:
    """Write who did what to which object; ``actor`` is a user, or None for the system (a command)."""
    user = actor if getattr(actor, "pk", None) is not None else None
    name = user.get_username() if user is not None else (str(actor) if actor else "system")
    return AuditEvent.objects.create(
        actor=user, actor_name=name[:150], action=action, target=str(target)[:200], detail=detail
    )
