"""`{% mturk_layout row %}`: an MTurk template filled with one item's CSV row, for the worker pages."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from annotation.task_types.mturk_template import MTurkTemplateTaskType

register = template.Library()


@register.simple_tag
def mturk_layout(row: dict[str, Any]) -> SafeString:
    """Safe to mark so: the template is sanitised by nh3 unless a researcher trusted it, and every
    CSV value is HTML-escaped before it is placed (annotation.task_types.mturk_layout)."""
    html = MTurkTemplateTaskType().render(row["item"], row["names"])
    return mark_safe(html)
