"""System checks for the crowd markets: `manage.py check` warns while MTurk is configured."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register

log = logging.getLogger(__name__)
MTURK_CLOSURE = dt.date(2026, 9, 30)


@register(Tags.compatibility)
def mturk_closure_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """AWS announced that MTurk closes on 2026-09-30: say so wherever it is switched on."""
    if not getattr(settings, "MTURK_ENABLED", False):
        return []
    verb = "closed" if dt.date.today() > MTURK_CLOSURE else "closes"
    message = f"MTurk is configured (MTURK_ENABLED), and AWS announced that MTurk {verb} on 2026-09-30."
    log.warning(message)
    return [
        Warning(
            message,
            hint="Keep Prolific or in-house annotators ready for new jobs; MTurk stays for old accounts.",
            id="annotation.W001",
        )
    ]
