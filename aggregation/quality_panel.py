"""The dashboard's quality panel: workers by estimated accuracy over time, the workers stopped with
their evidence, the money paid to them, and the gold spent. One source for each figure shown."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from aggregation.quality_charts import accuracy_over_time
from annotation.models import Job, Response
from annotation.quality import services as quality
from annotation.quality.gold_schedule import QualityPolicy
from annotation.quality.models import QualityCheck, WorkerStop, WritingRecord


@dataclass(frozen=True)
class QualityPanel:
    policy: QualityPolicy
    workers: list[dict[str, Any]]
    chart: str
    stops: list[WorkerStop]
    paid_to_stopped: Decimal
    gold_answers: int
    answers: int
    flagged_writing: int  # free-text answers flagged and not yet accepted

    @property
    def gold_share(self) -> float | None:
        return self.gold_answers / self.answers if self.answers else None


def quality_panel(job: Job) -> QualityPanel | None:
    """The panel of a job whose quality is checked live, or that has free-text answers; None otherwise."""
    policy = quality.policy_of(job)
    written = WritingRecord.objects.filter(response__job=job)
    if not policy.live and not written.exists():
        return None
    series: dict[str, list[float]] = defaultdict(list)
    latest: dict[str, QualityCheck] = {}
    for check in QualityCheck.objects.filter(job=job).select_related("worker").order_by("created", "pk"):
        name = str(check.worker)
        series[name].append(check.accuracy)
        latest[name] = check
    stops = list(
        WorkerStop.objects.filter(job=job)
        .select_related("worker", "quality_check", "reversed_by")
        .prefetch_related("market_calls")
    )
    stopped = [str(stop.worker) for stop in stops if stop.in_force]
    workers = [
        {"name": name, "check": check, "stopped": name in stopped, "submits": len(series[name])}
        for name, check in sorted(latest.items(), key=lambda pair: pair[1].accuracy)
    ]
    responses = Response.objects.filter(job=job)
    return QualityPanel(
        policy=policy,
        workers=workers,
        chart=accuracy_over_time(series, stopped, policy.quality_bar) if series else "",
        stops=stops,
        paid_to_stopped=quality.paid_to_stopped(job),
        gold_answers=responses.filter(is_gold=True).count(),
        answers=responses.count(),
        flagged_writing=written.filter(flagged=True, accepted_at__isnull=True).count(),
    )
