"""System check: every registered task type loads, so a bad `ANNOTATION_TASK_TYPES` entry stops
`manage.py check` (and so `runserver` and `migrate`) instead of the first page that offers it."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error, register

from annotation.task_types.base import TaskTypeError
from annotation.task_types.registry import get_task_type, task_type_slugs


@register()
def task_types_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    found: list[CheckMessage] = []
    for slug in task_type_slugs():
        try:
            get_task_type(slug)
        except TaskTypeError as error:
            found.append(
                Error(str(error), hint="Fix or remove it in ANNOTATION_TASK_TYPES.", id="annotation.E001")
            )
    return found
