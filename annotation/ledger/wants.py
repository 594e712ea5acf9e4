"""Whether a row's job still wants the row's call: asked by the engine before any row is sent, whoever
asks (the first time, the sweeper, the admin's "run requested", a re-ask).

A row that offers work (CREATE_HIT, EXTEND) is made only for a job that still wants that work: a
CREATE_HIT while a publish of its draft job is under way, an EXTEND while the job is published or
complete. A cancelled job wants nothing offered, and a draft whose publish failed wants nothing
until someone publishes it again. Reviews, bonuses and their pay rows are for work already done,
which cancelling the job does not undo: they are paid whatever the job's state.
"""

from __future__ import annotations

from annotation.ledger.models import LedgerEntry, RowKind
from annotation.models import Job, JobState

# The job states in which each work-offering row is wanted (CREATE_HIT: with a publish under way).
WANTED_IN: dict[str, tuple[str, ...]] = {
    RowKind.CREATE_HIT: (JobState.DRAFT,),
    RowKind.EXTEND: (*JobState.open(), JobState.COMPLETE),
}


def unwanted(entry: LedgerEntry, *, publishing: bool = False) -> str:
    """Why the row's job no longer wants its call ("" when it does); `publishing`: the caller is the
    job's publish, under way now."""
    wanted_in = WANTED_IN.get(entry.kind)
    if wanted_in is None or entry.job_id is None:
        return ""
    state = Job.objects.filter(pk=entry.job_id).values_list("state", flat=True).first()
    if state == JobState.CANCELLED:
        return f"cancelled: job {entry.job_id} is cancelled, so its {entry.kind} is not made"
    if state not in wanted_in:
        wanted = "/".join(wanted_in)
        return f"cancelled: job {entry.job_id} is {state}; a {entry.kind} is made only when it is {wanted}"
    if entry.kind == RowKind.CREATE_HIT and not publishing:
        return (
            f"cancelled: job {entry.job_id} is a draft with no publish under way; publishing it "
            "again offers its work"
        )
    return ""
