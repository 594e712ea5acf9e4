"""`manage.py replay_labels FILE.csv --labels a,b --policy adaptive --min-workers 2 --max-workers 5
--stop-posterior 0.95 [--gold GOLD.csv] --out OUT.csv [--machine-scores SCORES.csv --target-error 0.05
--confidence 0.95 --calibration-items 1000 --seed 0]`: replay labels collected elsewhere under a
redundancy policy, without the database, and check a machine's routing against the crowd's decisions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.adaptive import ADAPTIVE, FIXED, REDUNDANCIES, AdaptiveError, AdaptivePolicy
from aggregation.deciding import DECISIONS
from aggregation.label_files import DUPLICATES_OPTION, warnings_about
from aggregation.machines.checking import (
    RoutingCheck,
    check_routing,
    posterior_calibration,
    read_machine_scores,
)
from aggregation.machines.routing import RoutingError
from aggregation.policy import LABEL_MODELS
from aggregation.replaying import REPLAY_OUTPUT, ReplayResult, gold_accuracy, read_arrivals, read_gold, replay
from aggregation.streaming import LabelFileError
from config.csv_files import write_frame
from config.whole_files import WriteError


class Command(BaseCommand):
    help = (
        "Replay long-format labels (item,worker,label[,time]; arrival order by time, else file order) "
        "under a redundancy policy: the policy sees a label only when it asks for one. Writes "
        "aggregate_labels' columns plus labels_used; with --gold, prints fixed and adaptive accuracy."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--labels", required=True, help="the label set, comma-separated: a,b")
        parser.add_argument("--policy", choices=list(REDUNDANCIES), default=ADAPTIVE)
        parser.add_argument("--min-workers", type=int, default=2)
        parser.add_argument(
            "--max-workers", type=int, default=5, help="also the fixed policy's workers per item"
        )
        parser.add_argument("--stop-posterior", type=float, default=0.95)
        parser.add_argument("--label-model", choices=sorted(LABEL_MODELS), default="dawid_skene")
        parser.add_argument("--decide", choices=list(DECISIONS), default="model")
        parser.add_argument("--gold", type=Path, help="item,label: the true label of some items")
        parser.add_argument("--out", type=Path, required=True)
        parser.add_argument("--duplicates", **DUPLICATES_OPTION)
        machine = parser.add_argument_group("machine routing, checked against the crowd's decisions")
        machine.add_argument(
            "--machine-scores", type=Path, help="item,label,score: a machine's label of each item"
        )
        machine.add_argument("--target-error", type=float, default=0.05, help="ε: the error allowed (0.05)")
        machine.add_argument(
            "--confidence", type=float, default=0.95, help="1 − δ: the chance the bound holds (0.95)"
        )
        machine.add_argument("--calibration-items", type=int, default=1000, help="items the crowd calibrates")
        machine.add_argument("--seed", type=int, default=0, help="draws the calibration sample")

    def handle(self, *args: Any, **options: Any) -> None:
        labels = [label.strip() for label in options["labels"].split(",") if label.strip()]
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise CommandError("--labels needs two or more distinct labels, comma-separated")
        if not 0.5 <= options["confidence"] < 1:
            raise CommandError("--confidence is the chance the bound holds, in [0.5, 1): e.g. 0.95")
        for name in ("file", "gold", "machine_scores"):
            if options[name] is not None and not options[name].is_file():
                raise CommandError(f"{options[name]}: no such file")
        try:
            adaptive = AdaptivePolicy(
                options["min_workers"], options["max_workers"], options["stop_posterior"]
            )
            arrivals = read_arrivals(options["file"], labels, duplicates=options["duplicates"])
            for warning in warnings_about(arrivals.item_names):
                self.stderr.write(f"warning: {warning}")
            chosen = {"label_model": options["label_model"], "decision": options["decide"]}
            played = {
                policy: replay(arrivals, labels, policy, adaptive, **chosen)
                for policy in {options["policy"], *([FIXED, ADAPTIVE] if options["gold"] else [])}
            }
            gold = read_gold(options["gold"]) if options["gold"] else None
            routed = self._route(played[options["policy"]].table, labels, gold, options)
        except (AdaptiveError, LabelFileError, RoutingError) as error:
            raise CommandError(str(error)) from None
        result = played[options["policy"]]
        try:
            write_frame(options["out"], result.table, REPLAY_OUTPUT, float_format="%.6g")
        except WriteError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{options['policy']}: {result.labels_used} labels used of {int(arrivals.available.sum())} "
            f"for {len(result.table)} items ({result.rounds} rounds) -> {options['out']}"
        )
        if gold is not None:
            self._report_gold(played, result.table, gold, options["label_model"])
        if routed is not None:
            self.stdout.write(routed.describe())

    def _report_gold(
        self, played: dict[str, ReplayResult], table: pd.DataFrame, gold: dict[str, str], label_model: str
    ) -> None:
        """Fixed and adaptive accuracy on the gold items, and how calibrated the posteriors are there."""
        for policy in (FIXED, ADAPTIVE):
            share, judged = gold_accuracy(played[policy].table, gold)
            used = played[policy].labels_used
            self.stdout.write(f"{policy:>8}: accuracy={share:.4f} on {judged} gold items, labels used={used}")
        judged, ece, calibrated = posterior_calibration(table, gold)
        self.stdout.write(
            f"{label_model} posteriors on {judged} gold items: ECE={ece:.4f}, "
            f"calibrated (cross-fitted) ECE={calibrated:.4f}"
        )

    def _route(
        self, table: pd.DataFrame, labels: list[str], gold: dict[str, str] | None, options: dict[str, Any]
    ) -> RoutingCheck | None:
        """The machine's routing against the replayed decisions, when --machine-scores is given."""
        if options["machine_scores"] is None:
            return None
        machine = read_machine_scores(options["machine_scores"], labels)
        plan = (options["target_error"], round(1 - options["confidence"], 12), options["calibration_items"])
        decided = table.set_index("item")["label"]
        return check_routing(decided, machine, plan, seed=options["seed"], gold=gold)
