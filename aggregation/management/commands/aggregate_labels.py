"""`manage.py aggregate_labels FILE.csv --labels a,b,c --out OUT.csv`: aggregate labels collected
anywhere (long format, header item,worker,label) without the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.deciding import DECISIONS
from aggregation.declared import categorical_rule, categorical_rules, rule_answering_in
from aggregation.label_files import DUPLICATES_OPTION
from aggregation.policy import LABEL_MODELS
from aggregation.rules import AgreementRule
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
        parser.add_argument(
            "--labels",
            help="the label set, comma-separated: a,b,c. A task type's own answer labels (stance: "
            "SUPPORT,MILDLY_SUPPORT,MILDLY_UNDERMINE,UNDERMINE,NOT_VALID) are decided by its rule, "
            "as aggregate_job decides its jobs",
        )
        parser.add_argument(
            "--task-type", help="decide by this task type's rule (its answer labels are the label set)"
        )
        parser.add_argument("--label-model", choices=sorted(LABEL_MODELS), default="dawid_skene")
        parser.add_argument("--decide", choices=list(DECISIONS), default="rule")
        parser.add_argument(
            "--threshold",
            type=float,
            help="the rule's ρ threshold (default 0.5) or the model's posterior (default 0)",
        )
        parser.add_argument(
            "--comparison", choices=[">=", ">"], help="ρ's comparison (default: the task type's, else >=)"
        )
        parser.add_argument("--out", type=Path, required=True)
        parser.add_argument("--duplicates", **DUPLICATES_OPTION)

    def handle(self, *args: Any, **options: Any) -> None:
        labels, declared = self._labels_and_rule(options["labels"], options["task_type"])
        threshold = options["threshold"]
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise CommandError("--threshold lies between 0 and 1")
        if not options["file"].is_file():
            raise CommandError(f"{options['file']}: no such file")
        progress = shown_on(self.stderr)
        try:
            with progress.stage("read the labels", unit="rows") as done:
                coded = read_labels(options["file"], labels, duplicates=options["duplicates"])
                done(len(coded.item_codes))
            for warning in coded.warnings:
                self.stderr.write(f"warning: {warning}")
            with progress.stage(f"decide by the {options['decide']}", unit="items") as done:
                table = aggregate_labels(
                    coded,
                    labels,
                    label_model=options["label_model"],
                    decision=options["decide"],
                    threshold=threshold,
                    comparison=options["comparison"],
                    declared=declared,
                )
                done(len(table))
            write_frame(options["out"], table, OUTPUT, float_format="%.6g")
        except (LabelFileError, WriteError) as error:
            raise CommandError(str(error)) from None
        kept = int((table["status"] == "kept").sum())
        rule = f" (rule {declared.describe()})" if declared is not None else ""
        self.stdout.write(
            f"{len(table)} items from {len(coded.item_codes)} labels: {kept} kept{rule}. "
            f"Written to {options['out']}."
        )

    def _labels_and_rule(
        self, given: str | None, task_type: str | None
    ) -> tuple[list[str], AgreementRule | None]:
        """The label set to read, and the task type's rule when the labels are one's (or one is named)."""
        if task_type:
            rule = categorical_rule(task_type)
            if rule is None:
                known = ", ".join(sorted(categorical_rules()))
                raise CommandError(
                    f"{task_type!r} is not a task type with one label per answer; known: {known}"
                )
            return list(rule.answer_set.labels), rule
        labels = [label.strip() for label in (given or "").split(",") if label.strip()]
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise CommandError(
                "--labels needs two or more distinct labels, comma-separated (or give --task-type)"
            )
        found = rule_answering_in(labels)
        if found is None:
            return labels, None
        return list(found[1].answer_set.labels), found[1]
