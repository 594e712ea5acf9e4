"""Admin actions that spend money on a market: publish, extend, expire jobs; reject and bonus work.

Each shows what it will do, and what it can cost, on a confirmation page first; only the page's
"confirm" button acts, and it acts by starting a background operation (annotation.work.market_actions)
that a Celery worker runs: no market call is made inside the web request. The operation calls the
same services as everything else, so every paying call goes through the money ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.timesince import timesince

from accounts import audit
from accounts.models import AuditEvent
from annotation.market_interface.errors import RejectionError
from annotation.market_interface.registry import get_market
from annotation.models import Assignment, Job
from annotation.work.accuracy import job_accuracy
from annotation.work.cost_checks import estimate_cost_locally
from annotation.work.market_actions import SHOW_MARKET_COSTS, CostRead, last_cost_reads
from operations.models import Operation
from operations.services import start_operation

TEMPLATE = "annotation/admin/confirm_market_action.html"


@dataclass(frozen=True)
class Confirmation:
    """What an action's confirmation page says: its question, its table's columns, its button."""

    title: str
    headers: Sequence[str]
    confirm_label: str
    note: str = ""
    read_market: str = ""  # the label of the button that reads the market's balance and price again


def _confirm(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    page: Confirmation,
    rows: Sequence[Sequence[object]],
    form: forms.Form | None = None,
) -> TemplateResponse:
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": page.title,
        "headers": page.headers,
        "rows": rows,
        "form": form,
        "note": page.note,
        "read_market": page.read_market,
        "confirm_label": page.confirm_label,
        "objects": list(queryset),
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, TEMPLATE, context)


def start(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    kind: str,
    label: str,
    params: dict[str, Any],
    total: int,
) -> Operation:
    """Queue the operation and tell the user where to follow it."""
    operation = start_operation(kind, label, params, total=total, user=request.user)
    if kind in AUDITED:
        action = AUDITED[kind] if kind != "annotation.review_work" or params.get("approve") else "rejected"
        audit.record(request.user, action, label, operation=operation.pk, **params)
    link = reverse("admin:operations_operation_change", args=[operation.pk])
    modeladmin.message_user(
        request, format_html('{} queued: <a href="{}">follow its progress</a>.', label, link), messages.INFO
    )
    return operation


# The operations that spend money, as the audit trail names them.
AUDITED = {
    "annotation.publish_jobs": AuditEvent.Action.PUBLISHED,
    "annotation.extend_jobs": AuditEvent.Action.EXTENDED,
    "annotation.expire_jobs": AuditEvent.Action.EXPIRED,
    "annotation.review_work": AuditEvent.Action.APPROVED,
    "annotation.bonus_work": AuditEvent.Action.BONUS,
    "annotation.bonus_correct_answers": AuditEvent.Action.BONUS,
}


def _pks(objects: Sequence[Any]) -> list[int]:
    return [obj.pk for obj in objects]


def _cost_rows(jobs: Sequence[Job], extra: int = 0) -> list[list[object]]:
    """Each job's cost from our own records (no market call: a hanging market cannot hold the page),
    and the market's balance and price as a background operation last read them, with when."""
    reads = last_cost_reads(_pks(jobs))
    rows: list[list[object]] = []
    for job in jobs:
        estimate = estimate_cost_locally(job, extra=extra)
        verdict = estimate.refusal or "within the budget"
        money = [estimate.spend, estimate.worst_case, job.budget]
        rows.append(
            [job, job.market, *money, f"{estimate.fee_rate:.2%}", verdict, _last_read(reads.get(job.pk))]
        )
    return rows


def _last_read(read: CostRead | None) -> str:
    if read is None or read.operation.finished_at is None:
        return f"never read: press '{READ_MARKET}'"
    when = read.operation.finished_at
    return f"read {timezone.localtime(when):%Y-%m-%d %H:%M %Z} ({timesince(when)} ago): {read.line}"


READ_MARKET = "Read the market's balance and price (in the background)"


def _read_market(modeladmin: admin.ModelAdmin, request: HttpRequest, jobs: Sequence[Job]) -> None:
    """Start the operation that reads the balance and the market's price; the page shows its result."""
    start(modeladmin, request, SHOW_MARKET_COSTS, "Market cost", {"job_ids": _pks(jobs)}, len(jobs))


COST_HEADERS = [
    "job",
    "market",
    "this step can cost",
    "whole job worst case",
    "budget",
    "declared fee",
    "verdict",
    "market balance and price, as last read",
]
COST_NOTE = (
    "The costs are computed here at the market's declared fee rate, without asking the market. The "
    "balance and the market's own price (VAT included) are as last read in the background; the "
    "operation checks the balance again before it spends anything."
)


@admin.action(description="Publish on the market (shows the cost first)", permissions=["spend_money"])
def publish_on_market(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> Any:
    jobs = list(queryset)
    if "read_market" in request.POST:
        _read_market(modeladmin, request, jobs)
    elif "confirm" in request.POST:
        start(modeladmin, request, "annotation.publish_jobs", "Publish", {"job_ids": _pks(jobs)}, len(jobs))
        return None
    page = Confirmation(
        title="Publish these jobs?",
        headers=COST_HEADERS,
        confirm_label="Publish",
        note="The worst case is every assignment done and every allowed bonus paid, with the market fee. "
        + COST_NOTE,
        read_market=READ_MARKET,
    )
    return _confirm(modeladmin, request, queryset, page, _cost_rows(jobs))


class ExtendForm(forms.Form):
    count = forms.IntegerField(
        min_value=1, max_value=8, initial=1, help_text="More assignments on every HIT."
    )
    shown = forms.IntegerField(required=False, widget=forms.HiddenInput)


@admin.action(
    description="Extend on the market: more assignments per HIT (shows the cost first)",
    permissions=["spend_money"],
)
def extend_on_market(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> Any:
    jobs = list(queryset)
    form = ExtendForm(request.POST if "count" in request.POST else None)
    count = form.cleaned_data["count"] if form.is_valid() else 1
    if "read_market" in request.POST:
        _read_market(modeladmin, request, jobs)
    elif "confirm" in request.POST and form.is_valid() and form.cleaned_data["shown"] == count:
        params = {"job_ids": _pks(jobs), "count": count}
        start(modeladmin, request, "annotation.extend_jobs", f"Extend by {count}", params, len(jobs))
        return None
    # The cost on the page is for `count`; confirming a count whose cost was not shown shows it first.
    form = ExtendForm(initial={"count": count, "shown": count})
    page = Confirmation(
        title=f"Extend these jobs by {count} assignment(s) per HIT?",
        headers=COST_HEADERS,
        confirm_label=f"Extend by {count}",
        note="Change the number and press 'Show the cost' to see what another extension would cost. "
        + COST_NOTE,
        read_market=READ_MARKET,
    )
    return _confirm(modeladmin, request, queryset, page, _cost_rows(jobs, extra=count), form)


@admin.action(
    description="Expire on the market now (stop offering the HITs; pauses the job)",
    permissions=["spend_money"],
)
def expire_on_market(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> Any:
    jobs = list(queryset)
    if "confirm" in request.POST:
        start(modeladmin, request, "annotation.expire_jobs", "Expire", {"job_ids": _pks(jobs)}, len(jobs))
        return None
    rows = [[job, job.market, job.state, job.hits.filter(expired=False).count()] for job in jobs]
    page = Confirmation(
        title="Expire these jobs' HITs on their market?",
        headers=["job", "market", "state", "HITs still offered"],
        confirm_label="Expire",
        note="Work already accepted can still be submitted. Extending offers the HITs again.",
    )
    return _confirm(modeladmin, request, queryset, page, rows)


@admin.action(description="Approve submitted work (through the ledger)", permissions=["spend_money"])
def approve_work(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Assignment]) -> None:
    work_done = list(queryset)
    params = {"assignment_ids": _pks(work_done), "approve": True, "feedback": "Thank you."}
    start(modeladmin, request, "annotation.review_work", "Approve", params, len(work_done))


class RejectForm(forms.Form):
    feedback = forms.CharField(
        widget=forms.Textarea,
        min_length=1,
        help_text="The worker reads this. Prolific asks for at least 100 characters.",
    )

    def __init__(self, *args: Any, assignments: Sequence[Assignment] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.jobs = {a.job_id: a.job for a in assignments}.values()

    def clean_feedback(self) -> str:
        """Refused before anything is queued when a market would refuse it (Prolific: 100+ characters)."""
        feedback = str(self.cleaned_data["feedback"])
        for job in self.jobs:
            try:
                get_market(job.market).check(job, rejection=feedback)
            except RejectionError as error:
                raise forms.ValidationError(f"{job}: {error}") from error
        return feedback


@admin.action(description="Reject submitted work (asks for the feedback first)", permissions=["spend_money"])
def reject_work(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Assignment]) -> Any:
    chosen = list(queryset.select_related("job"))
    form = RejectForm(request.POST if "confirm" in request.POST else None, assignments=chosen)
    if form.is_valid():
        params = {
            "assignment_ids": _pks(chosen),
            "approve": False,
            "feedback": form.cleaned_data["feedback"],
        }
        start(modeladmin, request, "annotation.review_work", "Reject", params, len(chosen))
        return None
    rows = [[a, a.job, a.worker, a.state] for a in queryset.select_related("job", "worker")]
    page = Confirmation(
        title="Reject this work?",
        headers=["assignment", "job", "worker", "state"],
        confirm_label="Reject",
    )
    return _confirm(modeladmin, request, queryset, page, rows, form)


class BonusForm(forms.Form):
    amount = forms.DecimalField(min_value=Decimal("0.01"), max_digits=8, decimal_places=2)
    reason = forms.CharField(max_length=500, help_text="The worker reads this.")
    batch = forms.SlugField(
        help_text="Bonuses with the same batch name are paid at most once per assignment.",
    )


@admin.action(
    description="Pay a bonus (through the ledger; asks for the amount first)",
    permissions=["spend_money"],
)
def bonus_work(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Assignment]) -> Any:
    form = BonusForm(request.POST if "confirm" in request.POST else None)
    if form.is_valid():
        data, work_done = form.cleaned_data, list(queryset)
        params = {
            "assignment_ids": _pks(work_done),
            "amount": str(data["amount"]),
            "reason": data["reason"],
            "batch": data["batch"],
        }
        start(modeladmin, request, "annotation.bonus_work", f"Bonus {data['amount']}", params, len(work_done))
        return None
    if not form.is_bound:
        form = BonusForm(initial={"batch": f"admin-{timezone.now():%Y%m%d}"})
    rows = []
    for a in queryset.select_related("job", "worker"):
        cap = a.job.params.get("bonus_cap", 0)
        rows.append([a, a.job, a.job.market, a.state, cap])
    page = Confirmation(
        title="Pay a bonus for this work?",
        headers=["assignment", "job", "market", "state", "job bonus cap"],
        confirm_label="Pay the bonus",
        note="The market adds its fee. A job's bonuses never pass its bonus_cap parameter.",
    )
    return _confirm(modeladmin, request, queryset, page, rows, form)


@admin.action(
    description="Pay a bonus for each correct answer (through the ledger; shows the count first)",
    permissions=["spend_money"],
)
def bonus_correct_answers(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> Any:
    jobs = list(queryset.order_by("pk"))
    if "confirm" in request.POST:
        kind, params = "annotation.bonus_correct_answers", {"job_ids": _pks(jobs)}
        start(modeladmin, request, kind, "Bonus correct answers", params, len(jobs))
        return None
    rows = []
    for job in jobs:
        correct = job_accuracy(job.pk).overall.correct
        rows.append([job, job.market, correct, job.params.get("bonus_cap", 0)])
    page = Confirmation(
        title="Pay a bonus for each correct answer?",
        headers=["job", "market", "correct answers", "job bonus cap"],
        confirm_label="Pay the bonuses",
        note="Each correct answer earns its share of the HIT's reward, once; the market adds its fee. "
        "A job's bonuses never pass its bonus_cap parameter.",
    )
    return _confirm(modeladmin, request, queryset, page, rows)
