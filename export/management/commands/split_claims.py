from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from export.claim_splits import assign_claim_splits
from export.splits import DEFAULT_PLAN, Grouping, SplitPlan, SplitPlanError


class Command(BaseCommand):
    help = "Split the claims into train/dev/test (seeded; claims sharing a primary topic stay together)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=DEFAULT_PLAN.seed)
        parser.add_argument(
            "--ratios", type=float, nargs=3, metavar=("TRAIN", "DEV", "TEST"), default=DEFAULT_PLAN.ratios
        )
        parser.add_argument(
            "--grouping", choices=[g.value for g in Grouping], default=DEFAULT_PLAN.grouping.value
        )
        parser.add_argument(
            "--keep-existing",
            action="store_true",
            help="claims that have a split keep it; place only new ones",
        )

    def handle(
        self, *args: Any, seed: int, ratios: list[float], grouping: str, keep_existing: bool, **options: Any
    ) -> None:
        try:
            plan = SplitPlan(ratios=tuple(ratios), seed=seed, grouping=Grouping(grouping))  # type: ignore[arg-type]
        except SplitPlanError as error:
            raise CommandError(str(error)) from None
        report = assign_claim_splits(plan, keep_existing=keep_existing)
        self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
