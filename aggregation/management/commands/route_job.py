"""`manage.py route_job JOB`: once the crowd has decided a job's calibration items, choose where its
machine's labels are accepted (the threshold with its guarantee), print the forecast, and send the
items the machine is not trusted with to the crowd."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.machine_jobs import dispatch
from annotation.machines.plans import MachinePlanError
from annotation.machines.services import MachineError
from annotation.models import Job


class Command(BaseCommand):
    help = (
        "Choose a job's machine routing from the crowd's decisions of its calibration items, and send "
        "the items its machine is not trusted with to the crowd."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        job = Job.objects.filter(pk=options["job"]).first()
        if job is None:
            raise CommandError(f"no job {options['job']}")
        try:
            routed = dispatch(job)
        except (MachineError, MachinePlanError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(routed.describe())
