"""manage.py create_job <task-type> [filters] --market P [--workers N --bundle N --reward R --budget B]"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.task_types import task_type_slugs
from annotation.work.job_errors import JobError
from annotation.work.job_requests import JobRequest, open_job, request_params
from annotation.work.jobs import job_progress
from annotation.work.machine_forecasts import forecast_before_calibration
from config.wording import count


def amount_argument(raw: str) -> Decimal:
    """An amount given on the command line, or a clear error."""
    try:
        return Decimal(raw)
    except InvalidOperation:
        raise CommandError(f"{raw!r} is not an amount") from None


class Command(BaseCommand):
    help = "Create a draft annotation job over the items the filters choose, bundled into HITs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("task_type", choices=sorted(task_type_slugs()))
        parser.add_argument("--market", default="inhouse")
        parser.add_argument("--claims", help="comma-separated cIds")
        parser.add_argument("--source", help="idebate, debatewise, procon …")
        parser.add_argument("--split", help="train, dev, test")
        parser.add_argument("--topic", help="a topic slug")
        parser.add_argument("--status", help="cluster statuses, comma-separated")
        parser.add_argument("--limit", type=int, help="at most this many claims")
        parser.add_argument(
            "--gold", type=json.loads, help='filters choosing gold items, as JSON: {"claims": "1,2"}'
        )
        parser.add_argument("--workers", type=int, help="workers per item")
        parser.add_argument("--bundle", type=int, help="groups (claims, perspectives, …) per HIT")
        parser.add_argument("--reward", help="reward per HIT")
        parser.add_argument("--budget", type=amount_argument)
        parser.add_argument("--gold-per-hit", type=int)
        parser.add_argument("--param", action="append", default=[], help="NAME=JSON, any task-type parameter")
        parser.add_argument("--name", default="")
        parser.add_argument(
            "--allow-single-worker",
            action="store_true",
            help="allow one worker per item for a task decided by agreement (a job you will not aggregate)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        filters = {
            name: options[name]
            for name in ("claims", "source", "split", "topic", "status", "limit", "gold")
            if options[name] not in (None, "")
        }
        params = request_params(
            workers=options["workers"],
            bundle=options["bundle"],
            reward=options["reward"],
            gold_per_hit=options["gold_per_hit"],
            extra=dict(_named_param(entry) for entry in options["param"]),
        )
        request = JobRequest(
            options["task_type"],
            filters,
            market=options["market"],
            params=params,
            budget=options["budget"],
            name=options["name"],
            allow_single_worker=options["allow_single_worker"],
        )
        try:
            job = open_job(request)
        except JobError as error:
            raise CommandError(str(error)) from error
        progress = job_progress(job)
        self.stdout.write(
            f"job {job.pk}: {count(job.items.count(), 'item')} in {count(progress.hits, 'HIT')}"
            f" × {count(job.workers_per_item, 'worker')}"
        )
        forecast = forecast_before_calibration(job)
        if forecast is not None:
            self.stdout.write(forecast.describe(job.currency))


def _named_param(entry: str) -> tuple[str, Any]:
    """NAME=JSON, or NAME=text when the value is not JSON."""
    name, _, raw = entry.partition("=")
    try:
        return name, json.loads(raw)
    except json.JSONDecodeError:
        return name, raw
