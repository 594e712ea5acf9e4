"""The home page's wording: counts, money, job titles and links to what failed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html

from aggregation.adjudication import adjudication_refusal as refusal
from aggregation.wording import rule_in_words
from annotation.task_types import get_task_type
from config import wording
from config.columns import in_words

register = template.Library()


@register.simple_tag(name="count")
def count_tag(number: int, noun: str) -> str:
    return wording.count(number, noun)


@register.simple_tag(name="money")
def money_tag(amount: Decimal | None, currency: str = "USD") -> str:
    return wording.money(amount, currency)


@register.filter
def job_title(job: Any) -> str:
    """ "job 4: Stance verification" (its name, with its task type's when they differ), linked to its
    dashboard."""
    kind = get_task_type(job.task_type).name
    title = kind if not job.name or job.name.lower() == kind.lower() else f"{job.name} ({kind})"
    return format_html(
        '<a href="{}">job {}: {}</a>', reverse("aggregation:dashboard", args=[job.pk]), job.pk, title
    )


@register.filter
def join_pks(rows: list[Any]) -> str:
    return ",".join(str(row.pk) for row in rows)


@register.filter
def steps_done(run: Any) -> str:
    steps = list(run.steps.all())
    done = sum(1 for step in steps if step.state == "done")
    current = next((step for step in steps if step.state != "done"), None)
    return f"{done} of {len(steps)}" + (
        f"; {current.get_name_display()} {current.get_state_display()}" if current else ""
    )


@register.simple_tag
def failed_link(row: dict[str, Any]) -> str:
    """The failed thing, linked to the page where a person can see and act on it."""
    thing = row["object"]
    if row["kind"] == "operation":
        url, text = reverse("admin:operations_operation_change", args=[thing.pk]), f"operation: {thing.label}"
    elif row["kind"] == "crawl":
        url = reverse("admin:crawler_crawlrun_change", args=[thing.pk])
        text = f"crawl {thing.pk}: {thing.site}"
    elif row["kind"] == "pipeline step":
        url = reverse("admin:pipeline_pipelinerun_change", args=[thing.run_id])
        text = f"pipeline {thing.run_id}, step {thing.get_name_display()}"
    else:
        url = reverse("aggregation:dashboard", args=[thing.job_id])
        text = f"aggregation of job {thing.job_id} ({thing.job.task_type_name})"
    return format_html('<a href="{}">{}</a>', url, text)


@register.filter
def adjudication_refusal(job: Any) -> str:
    """Why the job's items cannot be adjudicated ("" when they can): a link to adjudicate shows only then."""
    return refusal(job)


@register.filter
def words(value: Any) -> str:
    """A code, flag, figure or list as a person reads it ("low agreement", "yes", "0.3333")."""
    return in_words(value)


@register.filter
def rule_words(run: Any) -> str:
    """An aggregation run's rule, its task type and kept labels by their names."""
    return rule_in_words(run)


@register.filter
def label_of(code: str, job: Any) -> str:
    """A label code of `job` by the name its task type gives it ("Not a valid perspective")."""
    return str(job.label_name(code))
