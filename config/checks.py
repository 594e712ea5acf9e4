"""Deployment system checks (`manage.py check --deploy`): the keys everything signed rests on."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register

# Sessions, CSRF and worker tokens are signed with SECRET_KEY; every exported worker pseudonym is an
# HMAC under WORKER_PSEUDONYM_KEY, so a guessable one lets anyone link pseudonyms back to market ids.
CHECKED_KEYS = {"SECRET_KEY": "config.E001", "WORKER_PSEUDONYM_KEY": "config.E002"}


@register(Tags.security, deploy=True)
def keys_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    if settings.DEBUG:
        return []
    from config.keys import HOW_TO_MAKE_ONE, weak_key_problem  # loads zxcvbn's word lists: deploy only

    found: list[CheckMessage] = []
    for name, check_id in CHECKED_KEYS.items():
        problem = weak_key_problem(name, str(getattr(settings, name, "") or ""))
        if problem:
            found.append(
                Error(problem, hint=f"Set {name} to a new random key; {HOW_TO_MAKE_ONE}", id=check_id)
            )
    return found
