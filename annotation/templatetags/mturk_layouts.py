"""MTurk templates on the worker pages: `{% mturk_layout row %}` shows one item's CSV row in the
job's template; `{% mturk_template_of job as template %}` gives the stored template."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from annotation.models import Job, MTurkTemplate
from annotation.task_types import get_task_type
from annotation.task_types.mturk_template import MTurkTemplateTaskType, template_of

register = template.Library()


@register.simple_tag
def mturk_layout(row: dict[str, Any]) -> SafeString:
    """Safe to mark so: the template is sanitised by nh3 unless a researcher trusted it, and every
    CSV value is HTML-escaped before it is placed (annotation.task_types.mturk_layout)."""
    item = row["item"]
    task_type = get_task_type(item.job.task_type)
    if not isinstance(task_type, MTurkTemplateTaskType):
        return mark_safe("")
    return mark_safe(task_type.render(item, row["names"]))


@register.simple_tag
def mturk_template_of(job: Job) -> MTurkTemplate:
    return template_of(job)
