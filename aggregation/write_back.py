"""A job's write-back to the corpus, as the job's writer (house style rule 21, docs/design/house-style.md)."""

from __future__ import annotations

from accounts import audit
from accounts.models import AuditEvent
from aggregation.models import AggregationRun
from annotation.models import Job
from annotation.task_types.base import TaskType
from annotation.task_types.decisions import Decision
from corpus import provenance
from corpus.provenance import Writer


def write_back(
    job: Job, run: AggregationRun, task_type: TaskType, decisions: list[Decision], rule: str
) -> None:
    """The task type's write-back as the job's writer: rows a person wrote last stay as they are, and
    what it rewrote of other writers' rows is recorded on the run and in the audit trail."""
    with provenance.writing(Writer.job(job.pk, f"aggregation run {run.pk}")) as log:
        task_type.write_back(decisions, rule)
    if log.touched_others:
        run.corpus_writes = log.detail()
        audit.record(
            run.started_by, AuditEvent.Action.WROTE_OVER, f"job {job.pk}", run=run.pk, **log.detail()
        )
