"""Admin: jobs with progress, HITs, assignments and responses per item (workers: annotation.staff.workers)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.permissions import NamedPermissions
from annotation.ledger.decisions import unclear_rows
from annotation.market_interface.registry import market_choices
from annotation.models import (
    Assignment,
    Hit,
    Item,
    Job,
    Response,
    Worker,
)
from annotation.mturk_templates import admin as mturk_templates_admin  # noqa: F401  (registers its pages)
from annotation.quality import admin as quality_admin  # noqa: F401  (registers the quality pages)
from annotation.staff import markets as market_admin
from annotation.staff import workers as worker_admin  # noqa: F401  (registers the workers' pages)
from annotation.staff.columns import TaskTypeFilter, task_type_name
from annotation.staff.ledger import reconcile_jobs, show_market_cost  # also registers the ledger's admin
from annotation.task_types import get_task_type, task_type_choices
from annotation.task_types.base import TaskTypeError
from annotation.work import people
from annotation.work.accuracy import job_accuracy
from annotation.work.job_errors import JobError
from annotation.work.jobs import check_new_job, check_workers_per_item, create_job, job_progress
from config.columns import ExampleJSONField, PlainFields, figure_column, label_column, table_field
from config.wording import money


class JobCreationForm(forms.ModelForm):
    task_type = forms.ChoiceField(choices=task_type_choices)
    market = forms.ChoiceField(choices=market_choices)
    filters = ExampleJSONField(
        '{"claims": "1,2,3"}  or  {"limit": 20}',
        help_text="which items, as a JSON object (examples in the box)",
    )
    params = ExampleJSONField(
        '{"workers_per_item": 5}',
        help_text="overrides of the task type's defaults, as a JSON object (an example in the box)",
    )
    allow_single_worker = forms.BooleanField(
        required=False,
        help_text="one worker per item for a task decided by agreement (a job you will not aggregate)",
    )

    class Meta:
        model = Job
        fields = ["name", "task_type", "market", "filters", "params", "budget", "teams"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        try:
            task_type = get_task_type(cleaned.get("task_type", ""))
            params = task_type.params(cleaned.get("params") or {})
            # The filters are read now, so a malformed one is a form error rather than a failed save.
            next(iter(task_type.select_items(cleaned.get("filters") or {}, params)), None)
            if not cleaned.get("allow_single_worker"):
                check_workers_per_item(cleaned.get("task_type", ""), cleaned.get("params") or {})
            params, market = cleaned.get("params") or {}, cleaned.get("market", "")
            check_new_job(task_type.slug, params, market, cleaned.get("budget"))
        except (TaskTypeError, JobError, ValueError) as error:
            raise forms.ValidationError(str(error)) from error
        return cleaned


def _in_background(action_name: str, kind: str, label: str, permission: str = "change") -> Any:
    """An action whose work calls a market: run as a background operation, never in the request."""

    def action(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        job_ids = list(queryset.values_list("pk", flat=True))
        market_admin.start(modeladmin, request, kind, label, {"job_ids": job_ids}, len(job_ids))

    action.__name__ = action_name
    return admin.action(description=label, permissions=[permission])(action)


class HitInline(admin.TabularInline):
    model = Hit
    fields = readonly_fields = ("position", "assignments_wanted", "reward", "external_id", "expired")
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Job)
class JobAdmin(PlainFields, NamedPermissions, admin.ModelAdmin):
    list_display = [
        "pk",
        "name",
        task_type_name,
        "market",
        "state",
        "progress",
        "budget",
        "created",
        "pages",
    ]
    list_filter = ["state", TaskTypeFilter, "market"]
    search_fields = ["name"]
    readonly_fields = ["state", "published_at", "completed_at", "workers_per_item", "reward", "progress"]
    inlines = [HitInline]
    actions = [
        market_admin.publish_on_market,
        market_admin.extend_on_market,
        market_admin.expire_on_market,
        market_admin.bonus_correct_answers,
        show_market_cost,
        reconcile_jobs,
        _in_background("sync", "annotation.sync_jobs", "Sync with the market"),
        _in_background("pause", "annotation.pause_jobs", "Pause (here and at the market)"),
        _in_background("resume", "annotation.resume_jobs", "Resume (here and at the market)"),
        _in_background("cancel", "annotation.cancel_jobs", "Cancel (expires the HITs at the market)"),
    ]

    # A created job's own figures and choices, shown but no longer edited (the budget and teams still are).
    fixed_once_created = [
        "pages",
        "task_type_name",
        "market",
        "state",
        "at_the_market",
        "money_in_doubt",
        "currency",
        "progress",
        "annotators",
        "accuracy",
        "params_table",
        "filters_table",
    ]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = JobCreationForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return [
                "name",
                "task_type",
                "market",
                "filters",
                "params",
                "allow_single_worker",
                "budget",
                "teams",
            ]
        return ["name", *self.fixed_once_created, "budget", "teams"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return []
        return list(self.fixed_once_created)

    def save_model(self, request: HttpRequest, obj: Job, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created = create_job(
            form.cleaned_data["task_type"],
            form.cleaned_data.get("filters") or {},
            market=form.cleaned_data["market"],
            params=form.cleaned_data.get("params") or {},
            budget=form.cleaned_data.get("budget"),
            name=form.cleaned_data.get("name") or "",
            created_by=request.user,
        )
        created.teams.set(form.cleaned_data.get("teams") or [])
        obj.pk = created.pk
        obj.refresh_from_db()
        obj._state.adding = False

    @admin.display(description="annotators")
    def annotators(self, job: Job) -> SafeString | str:
        rows = people.annotators(job)
        if not rows:
            return "nobody has worked on it yet"
        workers = Worker.objects.in_bulk([row.key for row in rows])
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    workers[r.key],
                    r.submitted,
                    r.assignments,
                    r.items,
                    f"{r.minutes:.1f}",
                    "-" if r.gold_accuracy is None else f"{r.gold_accuracy:.0%} of {r.gold_answered}",
                )
                for r in rows
            ),
        )
        head = "<tr><th>worker</th><th>submitted</th><th>items</th><th>minutes</th><th>gold</th></tr>"
        return format_html("<table>{}{}</table>", SafeString(head), body)

    @admin.display(description="accuracy against known answers")
    def accuracy(self, job: Job) -> SafeString | str:
        found = job_accuracy(job.pk)
        if not found.overall.answered:
            return "no answers to items with a known answer"
        workers = Worker.objects.in_bulk(list(found.workers))
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}/{}</td><td>{}</td></tr>",
            (
                (workers[pk], tally.correct, tally.answered, f"{tally.accuracy:.0%}")
                for pk, tally in sorted(found.workers.items())
            ),
        )
        mean = found.mean_worker_accuracy
        overall = found.overall
        summary = format_html(
            "<p>{}/{} answers correct ({}); mean accuracy over {} workers {}</p>",
            overall.correct,
            overall.answered,
            f"{overall.accuracy or 0:.0%}",
            len(found.workers),
            f"{mean or 0:.0%}",
        )
        head = "<tr><th>worker</th><th>correct</th><th>accuracy</th></tr>"
        return format_html("{}<table>{}{}</table>", summary, SafeString(head), body)

    @admin.display(description="pages")
    def pages(self, job: Job) -> SafeString:
        """The job's dashboard (the aggregation app's page, named by URL), which links adjudication
        when the job has something to adjudicate."""
        return format_html('<a href="{}">dashboard</a>', reverse("aggregation:dashboard", args=[job.pk]))

    @admin.display(description="at the market")
    def at_the_market(self, job: Job) -> str:
        """The market's own status of the job as the last sync read it, and why."""
        return f"{job.market_status}: {job.market_note}" if job.market_status else "not read yet"

    @admin.display(description="payments in doubt")
    def money_in_doubt(self, job: Job) -> SafeString | str:
        rows = list(unclear_rows(job.pk).order_by("pk"))
        if not rows:
            return "none"
        link = reverse("admin:annotation_ledgerentry_changelist")
        return format_html(
            '{} unclear ({}): <a href="{}?state__exact=unclear&amp;job__id__exact={}">decide in the ledger</a>',  # noqa: E501
            len(rows),
            ", ".join(f"{r.kind} {money(r.amount, r.currency)}" for r in rows),
            link,
            job.pk,
        )

    @admin.display(description="progress")
    def progress(self, job: Job) -> str:
        progress = job_progress(job)
        return f"{progress.assignments_done}/{progress.assignments_wanted} ({progress.fraction:.0%})"


class AssignmentInline(admin.TabularInline):
    model = Assignment
    fields = readonly_fields = (
        "worker",
        "state",
        "accepted_at",
        "submitted_at",
        "work_seconds_figure",
        "simulated",
    )
    work_seconds_figure = figure_column("work_seconds", "seconds of work", digits=1)
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Hit)
class HitAdmin(admin.ModelAdmin):
    list_display = ["pk", "job", "position", "assignments_wanted", "reward", "external_id", "expired"]
    list_filter = ["job"]
    readonly_fields = ["job", "position", "external_id", "published_at"]
    inlines = [AssignmentInline]


@admin.register(Assignment)
class AssignmentAdmin(PlainFields, NamedPermissions, admin.ModelAdmin):
    list_display = [
        "pk",
        "job",
        "hit",
        "worker",
        "state",
        "confirmed",
        "work_seconds_figure",
        "simulated",
        "submitted_at",
    ]
    list_filter = ["state", "confirmed", "simulated", "job"]
    readonly_fields = [
        "job",
        "hit",
        "worker",
        "accepted_at",
        "submitted_at",
        "work_seconds_figure",
        "simulated",
    ]
    work_seconds_figure = figure_column("work_seconds", "seconds of work", digits=1)
    actions = [market_admin.approve_work, market_admin.reject_work, market_admin.bonus_work]


class ResponseInline(admin.TabularInline):
    model = Response
    fields = readonly_fields = ("worker", "label_name", "value_shown", "correct", "simulated", "created")
    label_name = label_column("label", "label")
    value_shown = table_field("value", "value")
    extra = 0
    can_delete = False


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    """Responses per item."""

    list_display = ["pk", "job", "key", "is_gold", "known_answer_name", "responses_count"]
    list_filter = ["is_gold", "job"]
    search_fields = ["key"]
    readonly_fields = ["job", "key", "group", "payload_table", "known_answer_name", "is_gold"]
    known_answer_name = label_column("known_answer", "known answer")
    payload_table = table_field("payload", "payload")
    exclude = ["claim", "perspective", "cluster", "evidence"]
    inlines = [ResponseInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Item]:
        # Counted in the list's one query, not one query per row.
        return super().get_queryset(request).annotate(responses_total=Count("responses"))

    @admin.display(description="responses", ordering="responses_total")
    def responses_count(self, item: Item) -> int:
        return int(item.responses_total)  # type: ignore[attr-defined]


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ["pk", "job", "item", "worker", "label_name", "correct", "simulated", "created"]
    label_name = label_column("label", "label")
    list_filter = ["simulated", "is_gold", "job"]
    raw_id_fields = ["item", "worker", "assignment"]
