"""`manage.py replay_labels FILE.csv --labels a,b --policy adaptive --min-workers 2 --max-workers 5
--stop-posterior 0.95 [--gold GOLD.csv] --out OUT.csv`: replay labels collected elsewhere under a
redundancy policy, without the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.adaptive import ADAPTIVE, FIXED, REDUNDANCIES, AdaptiveError, AdaptivePolicy
from aggregation.deciding import DECISIONS
from aggregation.policy import LABEL_MODELS
from aggregation.replaying import REPLAY_OUTPUT, gold_accuracy, read_arrivals, read_gold, replay
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

    def handle(self, *args: Any, **options: Any) -> None:
        labels = [label.strip() for label in options["labels"].split(",") if label.strip()]
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise CommandError("--labels needs two or more distinct labels, comma-separated")
        for name in ("file", "gold"):
            if options[name] is not None and not options[name].is_file():
                raise CommandError(f"{options[name]}: no such file")
        try:
            adaptive = AdaptivePolicy(
                options["min_workers"], options["max_workers"], options["stop_posterior"]
            )
            arrivals = read_arrivals(options["file"], labels)
            chosen = {"label_model": options["label_model"], "decision": options["decide"]}
            played = {
                policy: replay(arrivals, labels, policy, adaptive, **chosen)
                for policy in {options["policy"], *([FIXED, ADAPTIVE] if options["gold"] else [])}
            }
            gold = read_gold(options["gold"]) if options["gold"] else None
        except (AdaptiveError, LabelFileError) as error:
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
            for policy in (FIXED, ADAPTIVE):
                share, judged = gold_accuracy(played[policy].table, gold)
                used = played[policy].labels_used
                self.stdout.write(
                    f"{policy:>8}: accuracy={share:.4f} on {judged} gold items, labels used={used}"
                )
