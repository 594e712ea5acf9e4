"""manage.py sync_job JOB [--queue]"""

from __future__ import annotations

from annotation.management.job_command import JobCommand
from annotation.models import Job
from annotation.work.jobs import job_progress, request_sync, sync_job


class Command(JobCommand):
    help = "Bring a job up to date with its market and settle its state (safe to repeat)."
    queued = "sync"

    def run(self, job_id: int) -> Job:
        return sync_job(job_id)

    def queue(self, job: Job) -> None:
        request_sync(job)

    def report(self, job: Job) -> str:
        progress = job_progress(job)
        return (
            f"job {job.pk}: {job.state}, "
            f"{progress.assignments_done}/{progress.assignments_wanted} assignments, "
            f"{progress.responses} responses"
        )
