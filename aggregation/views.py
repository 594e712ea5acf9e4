"""Staff pages: a job's dashboard, a claim's clusters (merge, split), two claims side by side (copy)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts.permissions import staff_permission
from aggregation import trimming
from aggregation.adjudication import draw_sample
from aggregation.dashboard import job_dashboard
from aggregation.forms import AggregateForm, CopyForm, MergeForm, SampleForm, SplitForm
from aggregation.models import RunTrigger, WorkerQuality
from aggregation.quality import request_soft_block
from aggregation.tasks import aggregate_job_task
from annotation.models import Job
from config.wording import count
from corpus.models import Claim, PerspectiveCluster


@staff_permission("annotation.view_job")
@require_http_methods(["GET", "POST"])
def dashboard(request: HttpRequest, job_id: int) -> HttpResponse:
    job = get_object_or_404(Job, pk=job_id)
    if request.method == "POST":
        _dashboard_action(request, job)
        return redirect("aggregation:dashboard", job_id=job.pk)
    context = {"board": job_dashboard(job), "aggregate_form": AggregateForm(), "sample_form": SampleForm()}
    return render(request, "aggregation/dashboard.html", context)


VIEW_CLUSTERS, CHANGE_CLUSTERS = "corpus.view_perspectivecluster", "corpus.change_perspectivecluster"
# What each of the dashboard's buttons needs.
DASHBOARD_ACTIONS = {
    "aggregate": "aggregation.add_aggregationrun",
    "sample": "aggregation.add_adjudication",
    "block": "annotation.change_worker",
}


def _dashboard_action(request: HttpRequest, job: Job) -> None:
    action = request.POST.get("action", "")
    if action in DASHBOARD_ACTIONS and not request.user.has_perm(DASHBOARD_ACTIONS[action]):
        raise PermissionDenied(f"needs the permission {DASHBOARD_ACTIONS[action]}")
    if action == "aggregate" and (form := AggregateForm(request.POST)).is_valid():
        overrides = {name: value for name, value in form.cleaned_data.items() if value not in (None, "")}
        aggregate_job_task.delay_on_commit(job.pk, RunTrigger.MANUAL, overrides)  # type: ignore[attr-defined]
        messages.info(request, "Aggregation requested.")
    elif action == "sample" and (sample := SampleForm(request.POST)).is_valid():
        total = draw_sample(job.pk, sample.cleaned_data["size"], seed=sample.cleaned_data["seed"])
        messages.info(request, f"{count(total, 'item')} in the accuracy sample.")
    elif action == "block":
        queued = request_soft_block(WorkerQuality.objects.filter(job=job, flagged=True), by=request.user)
        messages.info(request, f"Soft-block of {count(queued, 'flagged worker')} queued.")
    else:
        messages.error(request, "Nothing done: the form was not valid.")


@staff_permission(VIEW_CLUSTERS, CHANGE_CLUSTERS)
@require_http_methods(["GET", "POST"])
def claim_clusters(request: HttpRequest, cid: int) -> HttpResponse:
    claim = get_object_or_404(Claim, cid=cid)
    clusters = list(claim.clusters.prefetch_related("members__perspective").order_by("position"))
    if request.method == "POST":
        try:
            if request.POST.get("action") == "merge":
                merge = MergeForm(request.POST)
                _offer(merge, "clusters", [c.pk for c in clusters])
                if merge.is_valid():
                    trimming.merge_clusters(merge.cleaned_data["clusters"], user=request.user)
                    messages.info(request, "Clusters merged.")
            elif request.POST.get("action") == "split":
                split = SplitForm(request.POST)
                _offer(split, "perspectives", [m.perspective_id for c in clusters for m in c.members.all()])
                if split.is_valid():
                    data = split.cleaned_data
                    trimming.split_cluster(data["cluster"], data["perspectives"], user=request.user)
                    messages.info(request, "Cluster split.")
        except trimming.TrimmingError as error:
            messages.error(request, str(error))
        return redirect("aggregation:claim_clusters", cid=cid)
    similar = trimming.similar_claims(claim)
    context = {"claim": claim, "clusters": clusters, "similar": similar}
    return render(request, "aggregation/claim_clusters.html", context)


@staff_permission("corpus.view_claim")
@require_http_methods(["GET"])
def similar_claim_pairs(request: HttpRequest) -> HttpResponse:
    """Step 2d: the most similar claim pairs (default 350), each linking to the side-by-side view."""
    try:
        count = max(1, min(int(request.GET.get("n", 350)), 5000))
    except ValueError:
        count = 350
    rows = trimming.similar_claim_pairs(count)
    return render(request, "aggregation/similar_claims.html", {"rows": rows, "count": count})


@staff_permission(VIEW_CLUSTERS, CHANGE_CLUSTERS)
@require_http_methods(["GET", "POST"])
def compare_claims(request: HttpRequest, cid: int, other_cid: int) -> HttpResponse:
    claim = get_object_or_404(Claim, cid=cid)
    other = get_object_or_404(Claim, cid=other_cid)
    if request.method == "POST":
        form = CopyForm(request.POST)
        _offer(form, "clusters", list(claim.clusters.values_list("pk", flat=True)))
        if form.is_valid():
            try:
                copied = trimming.copy_clusters(
                    form.cleaned_data["clusters"],
                    other.pk,
                    oppose=form.cleaned_data["oppose"],
                    user=request.user,
                )
                messages.info(request, f"Copied {count(len(copied), 'cluster')} to c{other.cid}.")
            except trimming.TrimmingError as error:
                messages.error(request, str(error))
        return redirect("aggregation:compare_claims", cid=cid, other_cid=other_cid)
    sides = [
        (c, list(PerspectiveCluster.objects.filter(claim=c).prefetch_related("members__perspective")))
        for c in (claim, other)
    ]
    return render(
        request, "aggregation/compare_claims.html", {"sides": sides, "claim": claim, "other": other}
    )


def _offer(form: forms.Form, name: str, values: list[int]) -> None:
    """Limit a choice field to the ids on this page, so a POST cannot name another claim's rows."""
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)
    field.choices = [(value, value) for value in values]
