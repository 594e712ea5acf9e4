"""manage.py sync_job JOB [--queue]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation import work
from annotation.market_interface.base import ProviderError
from annotation.models import Job


class Command(BaseCommand):
    help = "Bring a job up to date with its provider and settle its state (safe to repeat)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument("--queue", action="store_true", help="hand it to a Celery worker instead")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            job = Job.objects.get(pk=options["job"])
            if options["queue"]:
                work.request_sync(job)
                self.stdout.write(f"job {job.pk}: sync queued")
                return
            job = work.sync_job(job.pk)
        except Job.DoesNotExist:
            raise CommandError(f"no job {options['job']}") from None
        except ProviderError as error:
            raise CommandError(str(error)) from error
        progress = work.job_progress(job)
        self.stdout.write(
            f"job {job.pk}: {job.state}, "
            f"{progress.assignments_done}/{progress.assignments_wanted} assignments, "
            f"{progress.responses} responses"
        )
