"""A job from the browser: the new-job form (with its cost forecast before saving) and the job's page,
whose buttons publish, pause, resume, extend and expire it as background operations with progress.

Nothing here calls a market: each button starts the operation the admin's actions start
(annotation.work.market_actions), which a Celery worker runs through the money ledger."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import staff_permission
from accounts.roles import SPEND_MONEY
from annotation.models import Job
from annotation.work.cost_checks import estimate_cost_locally
from annotation.work.job_errors import JobError
from annotation.work.job_requests import forecast_job, open_job
from annotation.work.jobs import job_progress
from home.job_exports import DOWNLOADS
from home.job_form import NewJobForm
from operations.models import Operation, OperationState
from operations.services import start_operation

VIEW_JOBS, ADD_JOB, CHANGE_JOB = "annotation.view_job", "annotation.add_job", "annotation.change_job"
# Each button of the job's page: the operation it starts, and the permission it needs. What pays a
# market (publishing, more assignments, resuming paid HITs) needs the permission to spend money.
ACTIONS: dict[str, tuple[str, str]] = {
    "publish": ("annotation.publish_jobs", SPEND_MONEY),
    "pause": ("annotation.pause_jobs", CHANGE_JOB),
    "resume": ("annotation.resume_jobs", SPEND_MONEY),
    "extend": ("annotation.extend_jobs", SPEND_MONEY),
    "expire": ("annotation.expire_jobs", SPEND_MONEY),
}
RECENT_OPERATIONS = 200  # the latest operations searched for this job's own


class ExtendForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=100, initial=1, help_text="more assignments per HIT")


def _context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {**admin.site.each_context(request), **extra}


@staff_permission(ADD_JOB)
def new_job(request: HttpRequest) -> HttpResponse:
    """GET: the form, filled from the link that led here (?claims=…, ?topic=…, ?kept_from=…).
    POST "forecast": the counts and the worst-case cost, nothing kept; POST "save": the draft job."""
    if request.method != "POST":
        form = NewJobForm(initial=request.GET.dict())
        return render(request, "home/new_job.html", _context(request, title="New job", form=form))
    form = NewJobForm(request.POST)
    forecast = None
    if form.is_valid():
        try:
            if request.POST.get("action") == "save":
                return _save(request, form)
            forecast = forecast_job(form.job_request())
        except JobError as error:
            form.add_error(None, str(error))
    return render(
        request, "home/new_job.html", _context(request, title="New job", form=form, forecast=forecast)
    )


def _save(request: HttpRequest, form: NewJobForm) -> HttpResponse:
    job = open_job(form.job_request(), created_by=request.user)
    job.teams.set(form.cleaned_data["teams"])
    messages.success(request, f"Job {job.pk} created as a draft: publish it when ready.")
    return redirect("jobs:job", job_id=job.pk)


@staff_permission(VIEW_JOBS)
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    """The job's state, progress and worst-case cost, its buttons, and its operations as they run."""
    job = get_object_or_404(Job, pk=job_id)
    if request.method == "POST":
        _start(request, job)
        return redirect("jobs:job", job_id=job.pk)
    operations = job_operations(job)
    context = _context(
        request,
        title=f"Job {job.pk}",
        job=job,
        progress=job_progress(job),
        estimate=estimate_cost_locally(job),
        operations=operations,
        running=any(op.state in OperationState.open() for op in operations),
        extend_form=ExtendForm(),
        buttons=[name for name in ACTIONS if name != "extend"],
        download=DOWNLOADS.get(job.task_type, ""),
        allowed={name for name, (_, needed) in ACTIONS.items() if request.user.has_perm(needed)},
    )
    return render(request, "home/job.html", context)


def _start(request: HttpRequest, job: Job) -> None:
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        messages.error(request, f"no action {action!r}; known: {', '.join(ACTIONS)}")
        return
    kind, needed = ACTIONS[action]
    if not request.user.has_perm(needed):
        raise PermissionDenied(f"needs the permission {needed}")
    params: dict[str, Any] = {"job_ids": [job.pk]}
    if action == "extend":
        form = ExtendForm(request.POST)
        if not form.is_valid():
            messages.error(request, f"extend: {form.errors.as_text()}")
            return
        params["count"] = form.cleaned_data["count"]
    start_operation(kind, f"{action} job {job.pk}", params, total=1, user=request.user)
    messages.info(request, f"{action.capitalize()} started: its progress shows below.")


def job_operations(job: Job) -> list[Operation]:
    """The background operations started on this job, newest first (found by the job's id in their
    parameters, among the latest operations of the job actions)."""
    kinds = [kind for kind, _ in ACTIONS.values()]
    latest = Operation.objects.filter(kind__in=kinds).order_by("-created", "-pk")[:RECENT_OPERATIONS]
    return [op for op in latest if job.pk in op.params.get("job_ids", [])]
