"""What a job's dashboard shows: progress, agreement figures, charts, flagged workers, sample accuracy."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from aggregation import charts
from aggregation.adaptive_rounds import AdaptiveSummary, adaptive_summary
from aggregation.adjudication import SampleAccuracy, adjudication_queue, sample_accuracy
from aggregation.declared import categorical_rule
from aggregation.models import AggregationRun, ItemOutcome, RunState, WorkerQuality
from annotation.ledger.decisions import unclear_rows
from annotation.ledger.models import LedgerEntry
from annotation.models import Job
from annotation.work import Progress, job_progress


@dataclass(frozen=True)
class Dashboard:
    job: Job
    progress: Progress
    run: AggregationRun | None
    runs: list[AggregationRun]
    waiting: int
    accuracy: SampleAccuracy
    flagged: list[dict[str, Any]]
    workers: list[WorkerQuality]
    adaptive: AdaptiveSummary | None
    rho_chart: str
    label_chart: str
    worker_chart: str
    # Market calls whose outcome nobody knows yet (annotation.ledger.decisions): money in doubt.
    unclear: list[LedgerEntry]


def job_dashboard(job: Job) -> Dashboard:
    runs = list(job.aggregation_runs.order_by("-created", "-pk")[:10])
    done = [run for run in runs if run.state == RunState.DONE]
    outcomes = list(ItemOutcome.objects.filter(job=job).values_list("agreement", "label"))
    qualities = list(WorkerQuality.objects.filter(job=job).select_related("worker").order_by("agreement"))
    threshold = _threshold(job.task_type, done[0]) if done else None
    has_data = bool(outcomes)
    return Dashboard(
        job=job,
        progress=job_progress(job),
        run=done[0] if done else None,
        runs=runs,
        waiting=adjudication_queue(job).count(),
        accuracy=sample_accuracy(job),
        flagged=[
            {
                "quality": quality,
                "pseudonym": str(quality.worker),
                "flags": ", ".join(quality.flags),
            }
            for quality in qualities
            if quality.flagged
        ],
        workers=sorted(qualities, key=lambda quality: str(quality.worker)),
        adaptive=adaptive_summary(job),
        rho_chart=charts.rho_histogram([a for a, _ in outcomes], threshold) if has_data else "",
        label_chart=charts.label_distribution(dict(Counter(label for _, label in outcomes).most_common()))
        if has_data
        else "",
        worker_chart=charts.worker_agreement(
            [q.agreement for q in qualities],
            [q.reliability for q in qualities],
            [q.flagged for q in qualities],
        )
        if qualities
        else "",
        unclear=list(unclear_rows(job.pk).order_by("pk")),
    )


def _threshold(task_type: str, run: AggregationRun) -> float | None:
    """The ρ threshold the run kept items by: its policy's, else the task's rule's (none for topics)."""
    given: float | None = run.policy.get("threshold")
    rule = categorical_rule(task_type)
    if given is not None or rule is None:
        return given
    return rule.threshold
