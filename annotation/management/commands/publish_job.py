"""manage.py publish_job JOB [--queue]"""

from __future__ import annotations

from annotation.management.job_command import JobCommand
from annotation.market_interface.base import MarketCallError
from annotation.models import Job
from annotation.work.job_errors import BudgetError
from annotation.work.jobs import publish_job, request_publish


class Command(JobCommand):
    help = "Publish a draft job's HITs through its market (safe to repeat)."
    queued = "publishing"
    errors = (BudgetError, MarketCallError)

    def run(self, job_id: int) -> Job:
        return publish_job(job_id)

    def queue(self, job: Job) -> None:
        request_publish(job)
