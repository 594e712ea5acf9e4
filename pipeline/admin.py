"""Pipeline runs in the admin: every step with its state, message and jobs; run a step from here."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.permissions import NamedPermissions
from annotation.models import Job
from annotation.work.jobs import job_progress
from config.columns import ExampleJSONField, PlainFields
from config.live import LiveCountsAdmin, cell
from config.wording import count
from pipeline.definition import PipelineDefinitionError, merged_params
from pipeline.models import PipelineRun, StepRun, StepState
from pipeline.runs import save_new_run


def _adjudicate_link(job: Job) -> str:
    """ " · adjudicate" where the job has something to adjudicate; "" elsewhere (its page would refuse)."""
    from aggregation.adjudication import adjudication_refusal  # loads NumPy: only when a step is shown

    if adjudication_refusal(job):
        return ""
    return format_html(' · <a href="{}">adjudicate</a>', reverse("aggregation:adjudicate", args=[job.pk]))


class StepInline(admin.TabularInline):
    model = StepRun
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "number",
        "name",
        "state",
        "message",
        "job_links",
        "crowd_progress",
        "started",
        "finished",
    )

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="step")
    def number(self, step: StepRun) -> int:
        return step.position + 1

    @admin.display(description="jobs")
    def job_links(self, step: StepRun) -> str:
        """Each job of the step: its dashboard, its adjudication page (where it has something to
        adjudicate) and its settings."""
        return format_html_join(
            "; ",
            '<a href="{}">job {} dashboard</a>{} · <a href="{}">settings</a>',
            (
                (
                    reverse("aggregation:dashboard", args=[job.pk]),
                    job.pk,
                    _adjudicate_link(job),
                    reverse("admin:annotation_job_change", args=[job.pk]),
                )
                for job in step.jobs.all()
            ),
        )

    @admin.display(description="crowd progress")
    def crowd_progress(self, step: StepRun) -> str:
        return crowd_progress(step)


def crowd_progress(step: StepRun) -> str:
    """Assignments done of those wanted, and responses, over the step's jobs ("" for a step without)."""
    shares = [job_progress(job) for job in step.jobs.all()]
    if not shares:
        return ""
    done, wanted = sum(p.assignments_done for p in shares), sum(p.assignments_wanted for p in shares)
    return f"{done}/{wanted} assignments, {sum(p.responses for p in shares)} responses"


def finished(run: PipelineRun | None) -> bool:
    """Every step of the run done (False for no run: the add form, the change list)."""
    return run is not None and not run.steps.exclude(state=StepState.DONE).exists()


def run_active(steps: list[StepRun]) -> bool:
    return any(step.state in (StepState.RUNNING, StepState.WAITING) for step in steps)


class PipelineRunForm(forms.ModelForm):
    params = ExampleJSONField(
        '{"market": "inhouse", "claims": [1007, 1008]}',
        help_text="Overrides of the defaults, as a JSON object (an example in the box).",
    )

    class Meta:
        model = PipelineRun
        fields = ["name", "params"]

    def clean_params(self) -> dict[str, Any]:
        params = self.cleaned_data["params"] or {}
        if not isinstance(params, dict):
            raise forms.ValidationError("give a JSON object")
        try:
            merged_params(params)
        except PipelineDefinitionError as error:
            raise forms.ValidationError(str(error)) from error
        return params


@admin.register(PipelineRun)
class PipelineRunAdmin(PlainFields, NamedPermissions, LiveCountsAdmin):
    form = PipelineRunForm
    list_display = ["__str__", "simulated", "progress", "created"]
    readonly_fields = ["simulated", "created", "updated"]
    actions = ["continue_runs"]
    change_list_template = "pipeline/pipelinerun_change_list.html"
    change_form_template = "pipeline/pipelinerun_change_form.html"

    def live_cells(self, shown: list[PipelineRun]) -> tuple[dict[str, str], bool]:
        """Each shown run's steps as they are now (the change list and a run's page poll this)."""
        cells, active = {}, False
        for run in shown:
            steps = list(run.steps.all())
            cells[cell(run.pk, "progress")] = self.progress(run)
            active = active or run_active(steps)
            if len(shown) == 1:  # its own page: the step rows of the inline
                for index, step in enumerate(steps):
                    row = f"#steps-{index}"
                    cells[f"{row} td.field-state p"] = step.get_state_display()
                    cells[f"{row} td.field-message p"] = step.message
                    cells[f"{row} td.field-crowd_progress p"] = crowd_progress(step)
        return cells, active

    def get_fields(self, request: HttpRequest, obj: PipelineRun | None = None) -> Any:
        if finished(obj):  # read, not edited: its parameters as a table
            return ["name", "params_table", "simulated", "created", "updated"]
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: PipelineRun | None = None) -> Any:
        return [*self.readonly_fields, "params_table"] if finished(obj) else self.readonly_fields

    def has_change_permission(self, request: HttpRequest, obj: PipelineRun | None = None) -> bool:
        """A finished run is a record: it is read, not edited."""
        return super().has_change_permission(request, obj) and not finished(obj)

    def has_delete_permission(self, request: HttpRequest, obj: PipelineRun | None = None) -> bool:
        return super().has_delete_permission(request, obj) and not finished(obj)

    def get_inlines(self, request: HttpRequest, obj: PipelineRun | None) -> list[type[InlineModelAdmin]]:
        return [StepInline] if obj is not None else []  # a new run's steps are made on save

    def save_model(self, request: HttpRequest, obj: PipelineRun, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
        else:
            save_new_run(obj, form.cleaned_data["params"])  # the defaults merged in, every step pending

    def get_queryset(self, request: HttpRequest) -> QuerySet[PipelineRun]:
        return super().get_queryset(request).prefetch_related("steps")

    @admin.display(description="steps done")
    def progress(self, run: PipelineRun) -> str:
        steps = list(run.steps.all())
        done = sum(1 for s in steps if s.state == StepState.DONE)
        current = next((s for s in steps if s.state != StepState.DONE), None)
        return f"{done}/{len(steps)}" + (f" — {current.name}: {current.state}" if current else "")

    @admin.action(description="Continue the selected runs (in the background)", permissions=["run_pipeline"])
    def continue_runs(self, request: HttpRequest, queryset: QuerySet[PipelineRun]) -> None:
        from pipeline.tasks import run_pipeline_task  # loads every step's code: only when a run continues

        for run in queryset:
            run_pipeline_task.delay_on_commit(run.pk)  # type: ignore[attr-defined]  # Celery 5.4+
        messages.info(request, f"{count(queryset.count(), 'run')} continue in the background")
