"""The adjudication page made for speed: one contested item at a time, decided from the keyboard.

The page is a shell; its script asks ``item`` for the next item as JSON and posts each decision to
``decide``, so the next item comes without a page load. Every view needs the named permission to
adjudicate, and every id the URL carries is checked against the job.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from aggregation.adjudication import (
    AdjudicationError,
    accept_model_labels,
    adjudicate,
    adjudication_queue,
    adjudication_refusal,
    choices,
    current_label,
    next_waiting,
    rated_responses,
)
from aggregation.declared import declared_rule, described_votes
from aggregation.models import ContestReason, ItemOutcome
from annotation.models import Job

PERMISSION = "aggregation.add_adjudication"
NOTE_LIMIT = 2000


def adjudicator(view: Any) -> Any:
    """Staff who hold the permission to adjudicate; anyone else gets 403 (anonymous: the login)."""
    return staff_member_required(permission_required(PERMISSION, raise_exception=True)(view))


class AcceptModelForm(forms.Form):
    threshold = forms.FloatField(
        min_value=0.5, max_value=1.0, initial=0.95, help_text="the model's posterior at least this"
    )


@adjudicator
@require_GET
def page(request: HttpRequest, job_id: int) -> HttpResponse:
    job = get_object_or_404(Job, pk=job_id)
    refusal = adjudication_refusal(job)
    if refusal:
        # Never aggregated: nothing yet, and nothing wrong with asking. No rule: never anything here.
        status = 400 if declared_rule(job.task_type) is None else 200
        context = {"job": job, "refusal": refusal, "title": f"Job {job.pk}"}
        return render(request, "aggregation/adjudicate.html", context, status=status)
    start = _outcome_id(request.GET.get("outcome"))
    context = {
        "job": job,
        "start": start or "",
        "accept_form": AcceptModelForm() if adjudication_queue(job).exists() else None,
        "title": f"Adjudicate job {job.pk}: {job.name}",
    }
    return render(request, "aggregation/adjudicate.html", context)


@adjudicator
@require_GET
def item(request: HttpRequest, job_id: int) -> JsonResponse:
    """``?outcome=ID``: that item (to go back to it); ``?after=ID``: the next waiting one after it;
    neither: the first waiting one."""
    job = get_object_or_404(Job, pk=job_id)
    given = {name: request.GET.get(name) for name in ("outcome", "after")}
    wanted, after = (_outcome_id(value) for value in given.values())
    if (given["outcome"] and wanted is None) or (given["after"] and after is None):
        return JsonResponse({"error": "an outcome id is a positive whole number"}, status=400)
    if wanted is not None:
        outcome: ItemOutcome | None = get_object_or_404(
            ItemOutcome.objects.select_related("item", "job"), pk=wanted, job=job
        )
    else:
        outcome = next_waiting(job, after)
    left = adjudication_queue(job).count()
    if outcome is None:
        return JsonResponse({"outcome": None, "left": left})
    return JsonResponse({**shown(outcome), "left": left})


@adjudicator
@require_POST
def decide(request: HttpRequest, job_id: int, outcome_id: int) -> JsonResponse:
    outcome = get_object_or_404(
        ItemOutcome.objects.select_related("job", "item"), pk=outcome_id, job_id=job_id
    )
    # The page names the item it showed: a page older than the outcome's id (outcomes are keyed by
    # their items since migration 0012) or than the queue must not decide another item.
    if "item" not in request.POST:
        return JsonResponse({"error": "the decision names no item: reload the page"}, status=400)
    if request.POST["item"] != outcome.item.key:
        return JsonResponse({"error": "this page shows another item: reload the page"}, status=409)
    labels, note = request.POST.getlist("label"), request.POST.get("note", "")
    if len(note) > NOTE_LIMIT:
        return JsonResponse({"error": f"a note is at most {NOTE_LIMIT} characters"}, status=400)
    offered = choices(outcome)
    if not offered.multiple and len(labels) != 1:
        return JsonResponse({"error": "choose exactly one label"}, status=400)
    try:
        record = adjudicate(
            outcome.pk, labels if offered.multiple else labels[0], user=request.user, note=note
        )
    except AdjudicationError as error:
        return JsonResponse({"error": str(error)}, status=400)
    return JsonResponse(
        {
            "decided": record.new_label,
            "status": record.new_status,
            "left": adjudication_queue(outcome.job).count(),
        }
    )


@adjudicator
@require_POST
def accept_model(request: HttpRequest, job_id: int) -> HttpResponse:
    job = get_object_or_404(Job, pk=job_id)
    form = AcceptModelForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing accepted: {form.errors.as_text()}")
        return redirect("aggregation:adjudicate", job_id=job.pk)
    threshold = form.cleaned_data["threshold"]
    try:
        accepted = accept_model_labels(job, threshold, user=request.user)
    except AdjudicationError as error:
        messages.error(request, f"Nothing accepted: {error}")
    else:
        messages.info(
            request, f"Accepted the model's label on {accepted} item(s) with posterior ≥ {threshold:g}."
        )
    return redirect("aggregation:adjudicate", job_id=job.pk)


def shown(outcome: ItemOutcome) -> dict[str, Any]:
    """What the page shows of one item: texts, every response with its worker's reliability, the
    crowd's aggregate, the label model's posterior, and the labels to choose from."""
    offered, rated, current = choices(outcome), rated_responses(outcome), current_label(outcome)
    return {
        "outcome": outcome.pk,
        "item": outcome.item.key,
        "gold": outcome.item.is_gold,
        "texts": [[name, str(value)] for name, value in outcome.item.payload.items()],
        "responses": [
            {
                "worker": r.worker,
                "label": r.label,
                "reliability": r.reliability,
                "agreement": r.agreement,
                "flags": list(r.flags),
                "blocked": r.blocked,
            }
            for r in rated
        ],
        "crowd": {
            "label": outcome.label,
            "fine_label": outcome.fine_label,
            "counts": outcome.counts,
            "votes": described_votes(outcome.job.task_type, outcome.counts),
            "agreement": outcome.agreement,
            "reasons": outcome.reasons,
            "why": ContestReason.describe(outcome.reasons),
        },
        "model": {"label": outcome.model_label, "posterior": outcome.model_confidence},
        "current": current,
        "adjudicated": outcome.adjudications.exists(),
        "choices": [list(choice) for choice in offered.labels],
        "multiple": offered.multiple,
        "names": label_names(outcome, {current, *(r.label for r in rated)}),
    }


def label_names(outcome: ItemOutcome, shown: set[str]) -> dict[str, str]:
    """The name of every label code the page shows for the outcome (its labels, the model's, and
    ``shown``: the current one and each response's), so the page reads names while it sends codes."""
    codes = {outcome.label, outcome.fine_label, outcome.model_label, *shown}
    return {code: outcome.job.label_name(code) for code in codes if code}


def _outcome_id(value: str | None) -> int | None:
    """An id from the URL: digits only and within a database integer, else None."""
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 18:
        return None
    number = int(value)
    return number if 0 < number < 2**63 else None
