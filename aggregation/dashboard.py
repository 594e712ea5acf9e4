"""What a job's dashboard shows: progress, agreement figures, charts, flagged workers, sample accuracy."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.db.models import Count

from aggregation import charts
from aggregation.adaptive_rounds import AdaptiveSummary, adaptive_summary
from aggregation.adjudication import SampleAccuracy, adjudication_queue, adjudication_refusal, sample_accuracy
from aggregation.declared import categorical_rule
from aggregation.machine_panel import MachinePanel, machine_panel
from aggregation.models import AggregationRun, ItemOutcome, RunState, WorkerQuality
from aggregation.posterior_calibration import (
    PosteriorCalibration,
    decisions_sentence,
    job_posterior_calibration,
)
from aggregation.quality_panel import QualityPanel, quality_panel
from aggregation.services import has_aggregation
from annotation.ledger.decisions import unclear_rows
from annotation.ledger.models import LedgerEntry
from annotation.ledger.payments import Payments, job_payments
from annotation.models import Job, Response, Worker
from annotation.task_types import get_task_type
from annotation.work.jobs import Progress, job_progress


@dataclass(frozen=True)
class Chart:
    """A chart drawn (`svg`), or the sentence that says why there is nothing to draw."""

    svg: str = ""
    why_not: str = ""


@dataclass(frozen=True)
class WorkerRow:
    """A worker who answered in the job: their responses, and their quality once estimated."""

    worker: Worker
    responses: int
    quality: WorkerQuality | None


NOT_AGGREGATED = "Drawn once the job is aggregated."


@dataclass(frozen=True)
class Dashboard:
    job: Job
    progress: Progress
    run: AggregationRun | None
    runs: list[AggregationRun]
    waiting: int
    accuracy: SampleAccuracy
    flagged: list[dict[str, Any]]
    workers: list[WorkerRow]
    adaptive: AdaptiveSummary | None
    rho_chart: Chart
    label_chart: Chart
    worker_chart: Chart
    aggregates: bool = True
    failed: AggregationRun | None = None
    advice: str = ""
    pipeline_runs: list[dict[str, Any]] = field(default_factory=list)
    releases: list[str] = field(default_factory=list)
    # Market calls whose outcome nobody knows yet (annotation.ledger.decisions): money in doubt.
    unclear: list[LedgerEntry] = field(default_factory=list)
    # Why the job's items cannot be adjudicated ("" when they can): the link shows only then.
    adjudication_refusal: str = ""
    payments: Payments = field(default_factory=Payments)
    # The machine beside the crowd, when the job has one (aggregation.machine_routing).
    machine: MachinePanel | None = None
    # Crowd quality checked live, when the job checks it or has free-text answers.
    quality: QualityPanel | None = None
    # The label model's posteriors against the answers people know (gold, adjudicated), when there are any.
    calibration: PosteriorCalibration | None = None
    # Which posteriors stop_posterior, min_posterior and the bulk acceptance read (calibrated or raw).
    decisions: str = ""


# What a person can do about the errors an aggregation fails with, by a phrase the error contains.
ADVICE = [
    (
        "single rater",
        "Every item has answers from one worker only, and agreement needs two. Extend the "
        "job's HITs to more workers (admin → jobs → Extend), or create the job again with --workers 3, "
        "then aggregate again.",
    ),
    ("no responses", "No confirmed answers yet: wait for the crowd (or sync the job), then aggregate again."),
]
DEFAULT_ADVICE = (
    "Fix what the error names, then aggregate again below (or run manage.py aggregate_job {job})."
)


def advice_for(error: str, job_id: int) -> str:
    return next((text for phrase, text in ADVICE if phrase in error), DEFAULT_ADVICE.format(job=job_id))


def related_pages(job: Job) -> tuple[list[dict[str, Any]], list[str]]:
    """The pipeline runs the job is part of, and the releases built from it.

    Both apps sit above this one, so they are read through the registry, not imported."""
    steps = apps.get_model("pipeline", "StepRun").objects.filter(jobs=job).order_by("run_id", "position")
    runs = [{"id": step.run_id, "step": step.get_name_display()} for step in steps]
    releases = apps.get_model("export", "Release").objects.order_by("-created", "-pk")
    built = [release.version for release in releases if job.pk in release.manifest.get("job_ids", [])]
    return runs, built


def job_dashboard(job: Job) -> Dashboard:
    """Everything the job's dashboard shows, from its last ten aggregation runs and its outcomes."""
    runs = list(job.aggregation_runs.order_by("-created", "-pk")[:10])
    done = [run for run in runs if run.state == RunState.DONE]
    failed = runs[0] if runs and runs[0].state == RunState.FAILED else None
    pipeline_runs, releases = related_pages(job)
    qualities = list(WorkerQuality.objects.filter(job=job).select_related("worker").order_by("agreement"))
    rho_chart, label_chart, worker_chart = _charts(job, done[0] if done else None, qualities)
    return Dashboard(
        job=job,
        progress=job_progress(job),
        run=done[0] if done else None,
        runs=runs,
        waiting=adjudication_queue(job).count(),
        accuracy=sample_accuracy(job),
        flagged=_flagged(qualities),
        workers=job_workers(job, qualities),
        adaptive=adaptive_summary(job),
        rho_chart=rho_chart,
        label_chart=label_chart,
        worker_chart=worker_chart,
        aggregates=has_aggregation(job.task_type),
        failed=failed,
        advice=advice_for(failed.error, job.pk) if failed else "",
        pipeline_runs=pipeline_runs,
        releases=releases,
        unclear=list(unclear_rows(job.pk).order_by("pk")),
        adjudication_refusal=adjudication_refusal(job),
        payments=job_payments(job),
        machine=machine_panel(job),
        quality=quality_panel(job),
        calibration=job_posterior_calibration(job),
        decisions=decisions_sentence(job),
    )


def job_workers(job: Job, qualities: list[WorkerQuality]) -> list[WorkerRow]:
    """Every worker with a response in the job, in the order of their ids, with their quality where the
    last aggregation estimated it."""
    quality_of = {quality.worker_id: quality for quality in qualities}
    answered = Response.objects.filter(job=job).values("worker").annotate(n=Count("pk")).order_by("worker")
    workers = Worker.objects.in_bulk([row["worker"] for row in answered])
    return [WorkerRow(workers[row["worker"]], row["n"], quality_of.get(row["worker"])) for row in answered]


def _flagged(qualities: list[WorkerQuality]) -> list[dict[str, Any]]:
    return [
        {"quality": quality, "pseudonym": str(quality.worker), "flags": ", ".join(quality.flags)}
        for quality in qualities
        if quality.flagged
    ]


def _charts(
    job: Job, run: AggregationRun | None, qualities: list[WorkerQuality]
) -> tuple[Chart, Chart, Chart]:
    """The ρ histogram (with the threshold `run` kept items by), label distribution and worker chart;
    each drawn when it has something to show, else the reason it has not."""
    outcomes = list(ItemOutcome.objects.filter(job=job).values_list("agreement", "label"))
    if not outcomes:
        return Chart(why_not=NOT_AGGREGATED), Chart(why_not=NOT_AGGREGATED), worker_chart(qualities)
    rated = [a for a, _ in outcomes if a is not None]
    rho = (
        Chart(charts.rho_histogram(rated, _threshold(job.task_type, run) if run else None))
        if rated
        else Chart(why_not="No item has answers from two workers, so no agreement ρ can be measured.")
    )
    name = get_task_type(job.task_type).label_name
    labels = charts.label_distribution(dict(Counter(name(label) for _, label in outcomes).most_common()))
    return rho, Chart(labels), worker_chart(qualities)


def worker_chart(qualities: list[WorkerQuality]) -> Chart:
    plotted = [q for q in qualities if q.agreement is not None and q.reliability is not None]
    if not qualities:
        return Chart(why_not=NOT_AGGREGATED)
    if not plotted:
        return Chart(
            why_not="Nothing to plot: the label model gives no reliability per worker "
            "(majority vote does not estimate one), or no worker shares an item with another."
        )
    return Chart(
        charts.worker_agreement(
            [q.agreement for q in plotted], [q.reliability for q in plotted], [q.flagged for q in plotted]
        )
    )


def _threshold(task_type: str, run: AggregationRun) -> float | None:
    """The ρ threshold the run kept items by: its policy's, else the task's rule's (none for topics)."""
    given: float | None = run.policy.get("threshold")
    rule = categorical_rule(task_type)
    if given is not None or rule is None:
        return given
    return rule.threshold
