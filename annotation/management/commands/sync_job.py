"""manage.py sync_job JOB [--queue]"""

from __future__ import annotations

from annotation import work
from annotation.management.job_command import JobCommand
from annotation.models import Job


class Command(JobCommand):
    help = "Bring a job up to date with its provider and settle its state (safe to repeat)."
    queued = "sync"

    def run(self, job_id: int) -> Job:
        return work.sync_job(job_id)

    def queue(self, job: Job) -> None:
        work.request_sync(job)

    def report(self, job: Job) -> str:
        progress = work.job_progress(job)
        return (
            f"job {job.pk}: {job.state}, "
            f"{progress.assignments_done}/{progress.assignments_wanted} assignments, "
            f"{progress.responses} responses"
        )
