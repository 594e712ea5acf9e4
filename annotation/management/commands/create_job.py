"""manage.py create_job <task-type> [filters] --provider P [--workers N --bundle N --reward R --budget B]"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation import work
from annotation.task_types import task_type_slugs
from annotation.task_types.base import TaskTypeError
from config.wording import count


def _decimal(raw: str) -> Decimal:
    try:
        return Decimal(raw)
    except InvalidOperation:
        raise CommandError(f"{raw!r} is not an amount") from None


class Command(BaseCommand):
    help = "Create a draft annotation job over the items the filters choose, bundled into HITs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("task_type", choices=sorted(task_type_slugs()))
        parser.add_argument("--provider", default="inhouse")
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
        parser.add_argument("--budget", type=_decimal)
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
        params: dict[str, Any] = {}
        for name, option in (
            ("workers_per_item", "workers"),
            ("groups_per_hit", "bundle"),
            ("reward", "reward"),
        ):
            if options[option] is not None:
                params[name] = options[option]
        if options["gold_per_hit"] is not None:
            params["gold_per_hit"] = options["gold_per_hit"]
        for entry in options["param"]:
            name, _, raw = entry.partition("=")
            try:
                params[name] = json.loads(raw)
            except json.JSONDecodeError:
                params[name] = raw
        try:
            if not options["allow_single_worker"]:
                work.check_workers_per_item(options["task_type"], params)
            job = work.create_job(
                options["task_type"],
                filters,
                provider=options["provider"],
                params=params,
                budget=options["budget"],
                name=options["name"],
            )
        except (work.JobError, TaskTypeError, ValueError) as error:
            raise CommandError(str(error)) from error
        progress = work.job_progress(job)
        self.stdout.write(
            f"job {job.pk}: {count(job.items.count(), 'item')} in {count(progress.hits, 'HIT')}"
            f" × {count(job.workers_per_item, 'worker')}"
        )
