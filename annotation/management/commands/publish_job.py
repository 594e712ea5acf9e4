"""manage.py publish_job JOB [--queue]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation import work
from annotation.market_interface.base import ProviderError
from annotation.models import Job


class Command(BaseCommand):
    help = "Publish a draft job's HITs through its provider (safe to repeat)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument("--queue", action="store_true", help="hand it to a Celery worker instead")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            job = Job.objects.get(pk=options["job"])
            if options["queue"]:
                work.request_publish(job)
                self.stdout.write(f"job {job.pk}: publishing queued")
                return
            job = work.publish_job(job.pk)
        except Job.DoesNotExist:
            raise CommandError(f"no job {options['job']}") from None
        except (work.BudgetError, ProviderError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"job {job.pk}: {job.state}")
