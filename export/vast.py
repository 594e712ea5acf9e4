"""A `vast_stance` job as VAST's CSV: answers read once, poor workers found with MACE, agreement
reported, examples built (`vast_rows`) and written with pandas."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotation.models import Item, Job
from annotation.task_types.builtin_rules import VAST_5_TO_3
from annotation.work.records import counted_responses
from config.csv_files import write_frame
from export.vast_quality import (
    Agreement,
    StanceAnswer,
    poor_workers,
    stance_agreement,
    worker_competence,
)
from export.vast_rows import COLUMNS, VastItem, vast_rows

if TYPE_CHECKING:
    import pandas as pd

TASK_TYPE = "vast_stance"


class VastExportError(ValueError):
    """A job that cannot be exported as VAST (unknown, another task type, no answers, bad options)."""


@dataclass(frozen=True)
class VastExport:
    """What `export_vast` wrote and found."""

    job_id: int
    path: Path
    rows: int
    by_type: dict[int, int]
    answers: int
    simulated: bool
    poor_workers: list[int]
    competence: dict[int, float]
    agreement: Agreement
    agreement_without_poor: Agreement
    skipped_answers: int = 0
    notes: list[str] = field(default_factory=list)


def export_vast(
    job_id: int,
    out: Path,
    *,
    min_competence: float = 0.5,
    min_answers: int = 3,
    neutral_share: float = 0.5,
    seed: int | None = None,
) -> VastExport:
    """Write job `job_id`'s VAST examples to `out` (CSV); answers of workers MACE rates below
    `min_competence` (over at least `min_answers` answers) do not vote. Refused for a job of another
    task type or with no answers."""
    _check_limits(min_competence, min_answers, neutral_share)
    job = _vast_job(job_id)
    answers, skipped, simulated = _counted_answers(job)
    seed = int(job.params.get("seed", 0)) if seed is None else seed
    competence = worker_competence(answers, seed=seed)
    poor = poor_workers(answers, competence, min_competence, min_answers)
    rows = vast_rows(
        job_items(job),
        answers,
        excluded_workers=poor,
        neutral_share=neutral_share,
        seed=seed,
        simulated=simulated,
    )
    frame = _written(rows, out)
    return VastExport(
        job_id=job.pk,
        path=out,
        rows=len(frame),
        by_type={int(k): int(v) for k, v in frame["type_idx"].value_counts().sort_index().items()},
        answers=len(answers),
        simulated=simulated,
        poor_workers=sorted(poor),
        competence={worker: round(theta, 4) for worker, theta in sorted(competence.items())},
        agreement=stance_agreement(answers),
        agreement_without_poor=stance_agreement(answers, poor),
        skipped_answers=skipped,
    )


def _written(rows: list[dict[str, Any]], out: Path) -> pd.DataFrame:
    """The rows as a table, written to `out` as CSV."""
    import pandas as pd  # here, not at the top: commands and workers that never export do not load it

    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    out.parent.mkdir(parents=True, exist_ok=True)
    write_frame(out, frame)
    return frame


def _check_limits(min_competence: float, min_answers: int, neutral_share: float) -> None:
    if not 0 <= min_competence <= 1 or not 0 <= neutral_share <= 1:
        raise VastExportError("min_competence and neutral_share must be between 0 and 1")
    if min_answers < 1:
        raise VastExportError("min_answers must be at least 1")


def _vast_job(job_id: int) -> Job:
    """Job `job_id`, refused unless it exists and is a VAST job."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        raise VastExportError(f"there is no job {job_id}")
    if job.task_type != TASK_TYPE:
        raise VastExportError(f"job {job_id} is a {job.task_type} job, not {TASK_TYPE}")
    return job


def _counted_answers(job: Job) -> tuple[list[StanceAnswer], int, bool]:
    """`job_answers`, refused when the job has none yet."""
    answers, skipped, simulated = job_answers(job)
    if not answers:
        raise VastExportError(f"job {job.pk} has no counted answers yet")
    return answers, skipped, simulated


def job_items(job: Job) -> list[VastItem]:
    """The job's non-gold items, with their claim's split (for the `seen?` column)."""
    items = Item.objects.filter(job=job, is_gold=False).select_related("claim").order_by("pk")
    return [
        VastItem(
            item=item.pk,
            key=item.key,
            comment_key=item.group,
            comment=str(item.payload.get("comment", "")),
            topic=str(item.payload.get("topic", "")),
            arc_id=int(item.payload.get("cid") or 0),
            split=item.claim.split if item.claim else "",
        )
        for item in items
    ]


def job_answers(job: Job) -> tuple[list[StanceAnswer], int, bool]:
    """Counted, non-gold answers (only work its market confirmed votes), how many were unreadable,
    and whether any came from a simulated crowd."""
    rows = (
        counted_responses(job)
        .order_by("item_id", "worker_id")
        .values_list("item_id", "worker_id", "value", "simulated")
    )
    answers, skipped, simulated = [], 0, False
    for item, worker, value, was_simulated in rows:
        simulated = simulated or was_simulated
        answer = stance_answer(item, worker, value)
        if answer is None:
            skipped += 1
        else:
            answers.append(answer)
    return answers, skipped, simulated


def stance_answer(item: int, worker: int, value: Any) -> StanceAnswer | None:
    """The stored value as a `StanceAnswer`; None when it is not one (the value is checked, not trusted)."""
    if not isinstance(value, Mapping) or value.get("stance") not in VAST_5_TO_3:
        return None
    topics = value.get("topics") or []
    if not isinstance(topics, list):
        return None
    return StanceAnswer(
        item=item,
        worker=worker,
        stance=str(value["stance"]),
        correction=str(value.get("correction") or ""),
        topics=tuple(str(topic) for topic in topics),
    )
