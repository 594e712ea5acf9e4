"""Task types: each one module (a `base.TaskType` subclass) plus a template, listed in `registry`.

This package's own import stays free of Django so its pure modules (`rules`, `decisions`,
`builtin_rules`) can be read by the pure aggregation core; the registry is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotation.task_types.base import TaskType


def get_task_type(slug: str) -> TaskType:
    """The registered task type `slug`; `TaskTypeError` for an unknown slug or a broken path."""
    from annotation.task_types import registry

    return registry.get_task_type(slug)


def task_type_slugs() -> list[str]:
    from annotation.task_types import registry

    return registry.task_type_slugs()


def task_type_choices() -> list[tuple[str, str]]:
    from annotation.task_types import registry

    return registry.task_type_choices()
