"""`manage.py label_job JOB`: the job's machine labels its items (a local one, or a chat server within the
spend cap), before its threshold is chosen."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.machine_jobs import label_with_machine
from annotation.machines.plans import MachinePlanError
from annotation.machines.services import MachineError
from annotation.management.commands.create_job import amount_argument
from annotation.models import Job


class Command(BaseCommand):
    help = "Have a job's machine (its machine parameter's annotator) label the job's items."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)
        parser.add_argument(
            "--cap", type=amount_argument, help="a chat machine's spend cap (default: the job's budget)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        job = Job.objects.filter(pk=options["job"]).first()
        if job is None:
            raise CommandError(f"no job {options['job']}")
        try:
            self.stdout.write(label_with_machine(job, options["cap"]))
        except (MachineError, MachinePlanError) as error:
            raise CommandError(str(error)) from None
