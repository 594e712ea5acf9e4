"""What `publish_job` and `sync_job` share: one job, run here or handed to a Celery worker (`--queue`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.market_interface.base import MarketCallError
from annotation.models import Job


class JobCommand(BaseCommand):
    """A service on one job, safe to repeat; a subclass names it (`run`, `queue`) and what it reports."""

    # What `--queue` reports as queued ("publishing", "sync").
    queued: str
    # The errors the service raises that are the operator's to read, not a traceback.
    errors: tuple[type[Exception], ...] = (MarketCallError,)

    def run(self, job_id: int) -> Job:
        raise NotImplementedError

    def queue(self, job: Job) -> None:
        raise NotImplementedError

    def report(self, job: Job) -> str:
        return f"job {job.pk}: {job.state}"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument("--queue", action="store_true", help="hand it to a Celery worker instead")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            job = Job.objects.get(pk=options["job"])
            if options["queue"]:
                self.queue(job)
                self.stdout.write(f"job {job.pk}: {self.queued} queued")
                return
            job = self.run(job.pk)
        except Job.DoesNotExist:
            raise CommandError(f"no job {options['job']}") from None
        except self.errors as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.report(job))
