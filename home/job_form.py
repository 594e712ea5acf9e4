"""The new-job form: what `create_job` asks on the command line, as fields a researcher fills in.

The form only gathers the request (annotation.work.job_requests.JobRequest); the checks and their
messages are the command's own, so the page refuses what the command refuses, in the same words."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django import forms

from accounts.models import Team
from aggregation.models import ItemOutcome
from aggregation.rules import KEPT
from annotation.market_interface.registry import market_names
from annotation.models import Job
from annotation.redundancy import ADAPTIVE
from annotation.task_types.registry import task_type_choices
from annotation.work.job_requests import JobRequest, request_params

FIXED_OR_ADAPTIVE = [
    ("fixed", "a fixed number of workers per item"),
    (ADAPTIVE, "adaptive: more only where needed"),
]


# What a person types into the machine box, shown there as its placeholder.
MACHINE_EXAMPLE = json.dumps(
    {"annotator": "local-stance", "target_error": 0.1, "confidence": 0.95, "calibration_items": 500}
)


class NewJobForm(forms.Form):
    task_type = forms.ChoiceField(choices=task_type_choices)
    name = forms.CharField(required=False, max_length=200)
    # The items: any mix of these filters chooses the claims the job's items come from.
    claims = forms.CharField(required=False, help_text="claim ids, comma-separated")
    topic = forms.CharField(required=False, help_text="a topic slug")
    split = forms.ChoiceField(
        required=False, choices=[("", "any"), ("train", "train"), ("dev", "dev"), ("test", "test")]
    )
    source = forms.CharField(required=False, help_text="idebate, debatewise, procon …")
    kept_from = forms.ModelChoiceField(
        Job.objects.order_by("-pk"),
        required=False,
        label="Kept items of job",
        help_text="the claims of the items a previous job's latest aggregation kept",
    )
    limit = forms.IntegerField(required=False, min_value=1, help_text="at most this many claims")
    # Where and how the work is done.
    market = forms.ChoiceField(choices=lambda: [(name, name) for name in market_names()], initial="inhouse")
    redundancy = forms.ChoiceField(choices=FIXED_OR_ADAPTIVE, initial="fixed")
    workers = forms.IntegerField(required=False, min_value=1, help_text="workers per item (fixed)")
    min_workers = forms.IntegerField(required=False, min_value=1, help_text="adaptive: first round")
    max_workers = forms.IntegerField(required=False, min_value=1, help_text="adaptive: at most")
    bundle = forms.IntegerField(required=False, min_value=1, help_text="claims (or groups) per HIT")
    reward = forms.DecimalField(required=False, min_value=Decimal(0), decimal_places=2, help_text="per HIT")
    budget = forms.DecimalField(required=False, min_value=Decimal(0), decimal_places=2)
    # Quiz and gold: gold items mixed into each HIT, chosen by their claim ids.
    quiz_pass_mark = forms.FloatField(required=False, min_value=0, max_value=1, help_text="e.g. 0.75")
    gold_claims = forms.CharField(required=False, help_text="claim ids whose known answers are the gold")
    gold_per_hit = forms.IntegerField(required=False, min_value=0)
    teams = forms.ModelMultipleChoiceField(
        Team.objects.all(),
        required=False,
        help_text="in-house: only these teams see the job (none: everyone)",
    )
    screening = forms.CharField(
        required=False,
        # The example is the box's placeholder: what a person types, shown where it is typed.
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": '{"approval_rate": {"lower": 95}}'}),
        help_text="Prolific: who may take the study, as a JSON object of Prolific's filters (as in the box)",
    )
    machine = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": MACHINE_EXAMPLE}),
        help_text="a machine beside the crowd: its plan as a JSON object (as in the box)",
    )
    allow_single_worker = forms.BooleanField(required=False, help_text="a job you will not aggregate")

    def clean_screening(self) -> dict[str, Any] | None:
        return _json_object(
            self.cleaned_data["screening"], 'a JSON object of filters, e.g. {"countries": ["1"]}'
        )

    def clean_machine(self) -> dict[str, Any] | None:
        return _json_object(self.cleaned_data["machine"], "a JSON object: the machine's plan")

    def clean_kept_from(self) -> Job | None:
        job = self.cleaned_data["kept_from"]
        if job is not None and not kept_claims(job):
            raise forms.ValidationError(f"job {job.pk} has kept no items yet: aggregate it first")
        return job

    def job_request(self) -> JobRequest:
        """The request the filled-in form makes (call after is_valid)."""
        data = self.cleaned_data
        return JobRequest(
            data["task_type"],
            _filters(data),
            market=data["market"],
            params=request_params(
                workers=data["workers"],
                bundle=data["bundle"],
                reward=data["reward"],
                gold_per_hit=data["gold_per_hit"],
                extra=_extra_params(data),
            ),
            budget=data["budget"],
            name=data["name"],
            allow_single_worker=data["allow_single_worker"],
        )


def _json_object(raw: str, wanted: str) -> dict[str, Any] | None:
    """A JSON object typed into a box, None when it is empty."""
    if not raw.strip():
        return None
    try:
        chosen = json.loads(raw)
    except json.JSONDecodeError as error:
        raise forms.ValidationError(f"not JSON: {error}") from error
    if not isinstance(chosen, dict):
        raise forms.ValidationError(wanted)
    return chosen


def _filters(data: dict[str, Any]) -> dict[str, Any]:
    filters = {name: data[name] for name in ("claims", "topic", "split", "source", "limit") if data[name]}
    if data["kept_from"] is not None:
        kept = kept_claims(data["kept_from"])
        given = {cid.strip() for cid in filters.get("claims", "").split(",") if cid.strip()}
        filters["claims"] = ",".join(sorted(kept & given if given else kept, key=int))
    if data["gold_claims"]:
        filters["gold"] = {"claims": data["gold_claims"]}
    return filters


def kept_claims(job: Job) -> set[str]:
    """The claim ids of the items the job's latest aggregation kept."""
    outcomes = ItemOutcome.objects.filter(job=job, status=KEPT, item__claim__isnull=False)
    return {str(cid) for cid in outcomes.values_list("item__claim__cid", flat=True).distinct()}


def _extra_params(data: dict[str, Any]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if data["redundancy"] == ADAPTIVE:
        extra["redundancy"] = ADAPTIVE
        for name in ("min_workers", "max_workers"):
            if data[name] is not None:
                extra[name] = data[name]
    if data["quiz_pass_mark"] is not None:
        extra["quiz_pass_mark"] = data["quiz_pass_mark"]
    if data["screening"] is not None:
        extra["prolific_screening"] = data["screening"]
    if data["machine"] is not None:
        extra["machine"] = data["machine"]
    return extra
