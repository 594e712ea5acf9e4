"""What a market's sync report changes in our rows: the job's market status (the job follows the
market's pause and recruiting), and the states and confirmation of the assignments it reports."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from django.db import transaction

from annotation.market_interface.base import AssignmentReport, SyncReport
from annotation.models import Assignment, Job, JobState


def take_market_status(job_id: int, report: SyncReport) -> None:
    """The market's own status of the job and why; the job follows the market's state: paused here when
    the market paused it by itself (nobody waits for work it no longer recruits for), collecting again
    when the market recruits for a job paused here."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        job.market_status, job.market_note = report.market_status[:32], report.market_note[:300]
        if report.market_paused and job.state in JobState.open():
            job.state = JobState.PAUSED
        elif report.market_recruiting and job.state == JobState.PAUSED:
            job.state = JobState.COLLECTING
        job.save(update_fields=["market_status", "market_note", "state", "updated"])


def take_reports(job: Job, reports: Sequence[AssignmentReport]) -> None:
    """The market's word on a batch of assignments: their states, and confirmation of the ones it
    reports as the same worker's on the same HIT. A report naming another worker changes nothing."""
    by_id = {report.assignment_external_id: report for report in reports}
    local = job.assignments.filter(external_id__in=list(by_id)).select_related("worker", "hit")
    theirs = [a for a in local if a.worker.external_id == by_id[a.external_id].worker_external_id]
    # One UPDATE per market state and batch, not one per assignment the market reports.
    by_state: dict[str, list[int]] = defaultdict(list)
    for assignment in theirs:
        by_state[by_id[assignment.external_id].state].append(assignment.pk)
    for state, pks in by_state.items():
        Assignment.objects.filter(pk__in=pks).exclude(state=state).update(state=state)
    confirmed = [a.pk for a in theirs if a.hit.external_id == by_id[a.external_id].hit_external_id]
    Assignment.objects.filter(pk__in=confirmed, confirmed=False).update(confirmed=True)
