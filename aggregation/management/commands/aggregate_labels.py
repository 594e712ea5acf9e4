"""`manage.py aggregate_labels FILE.csv --labels a,b,c --out OUT.csv`: aggregate labels collected
anywhere (long format, header item,worker,label) without the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.deciding import DECISIONS
from aggregation.policy import LABEL_MODELS
from aggregation.streaming import OUTPUT, LabelFileError, aggregate_labels, read_labels
from config.csv_files import write_frame
from config.progress import shown_on
from config.whole_files import WriteError


class Command(BaseCommand):
    help = (
        "Aggregate long-format labels (item,worker,label) from any crowd into one row per item: "
        "item,label,agreement,status,model_label,confidence. Reads the file in chunks; no database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--labels", required=True, help="the label set, comma-separated: a,b,c")
        parser.add_argument("--label-model", choices=sorted(LABEL_MODELS), default="dawid_skene")
        parser.add_argument("--decide", choices=list(DECISIONS), default="rule")
        parser.add_argument(
            "--threshold",
            type=float,
            help="the rule's ρ threshold (default 0.5) or the model's posterior (default 0)",
        )
        parser.add_argument("--comparison", choices=[">=", ">"], default=">=")
        parser.add_argument("--out", type=Path, required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        labels = [label.strip() for label in options["labels"].split(",") if label.strip()]
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise CommandError("--labels needs two or more distinct labels, comma-separated")
        threshold = options["threshold"]
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise CommandError("--threshold lies between 0 and 1")
        if not options["file"].is_file():
            raise CommandError(f"{options['file']}: no such file")
        progress = shown_on(self.stderr)
        try:
            with progress.stage("read the labels", unit="rows") as done:
                coded = read_labels(options["file"], labels)
                done(len(coded.item_codes))
            with progress.stage(f"decide by the {options['decide']}", unit="items") as done:
                table = aggregate_labels(
                    coded, labels, label_model=options["label_model"], decision=options["decide"],
                    threshold=threshold, comparison=options["comparison"],
                )  # fmt: skip
                done(len(table))
            write_frame(options["out"], table, OUTPUT, float_format="%.6g")
        except (LabelFileError, WriteError) as error:
            raise CommandError(str(error)) from None
        kept = int((table["status"] == "kept").sum())
        self.stdout.write(
            f"{len(table)} items from {len(coded.item_codes)} labels: {kept} kept -> {options['out']}"
        )
