from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.wording import count, figure
from export.vast import VastExportError, export_vast
from export.vast_rows import describe_types


class Command(BaseCommand):
    help = (
        "Write a vast_stance job's examples as VAST's CSV (Heur, Corr, List and synthetic neutral rows); "
        "workers MACE rates below --min-competence do not vote. Reports Krippendorff's alpha."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int, help="the vast_stance job's id")
        parser.add_argument("--out", required=True, type=Path, help="the CSV file to write")
        parser.add_argument(
            "--min-competence", type=float, default=0.5, help="a MACE competence θ below this is poor"
        )
        parser.add_argument(
            "--min-answers", type=int, default=3, help="judge only workers with this many stance answers"
        )
        parser.add_argument(
            "--neutral-share", type=float, default=0.5, help="share of Heur/Corr rows given a neutral pair"
        )
        parser.add_argument("--seed", type=int, help="seed of the neutral pairing (default: the job's)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = export_vast(
                options["job"],
                options["out"],
                min_competence=options["min_competence"],
                min_answers=options["min_answers"],
                neutral_share=options["neutral_share"],
                seed=options["seed"],
            )
        except (VastExportError, OSError) as error:
            raise CommandError(str(error)) from None
        crowd = "a simulated crowd" if report.simulated else "its workers"
        by_type = describe_types(report.by_type) or "none"
        self.stdout.write(
            f"{count(report.rows, 'row')} ({by_type}), {count(report.answers, 'answer')} of {crowd}"
        )
        self.stdout.write(f"written to {report.path}")
        poor = ", ".join(str(worker) for worker in report.poor_workers) or "none"
        self.stdout.write(f"poor workers (MACE θ < {options['min_competence']}): {poor}")
        for name, figures in (
            ("all workers", report.agreement),
            ("poor left out", report.agreement_without_poor),
        ):
            self.stdout.write(
                f"stance on the proposed topic, {name}: Krippendorff's alpha "
                f"{figure(figures.krippendorff_alpha, missing='not computable')}, pairwise agreement "
                f"{figure(figures.percent_agreement, missing='not computable')} over "
                f"{count(figures.items, 'item')}"
            )
        if report.skipped_answers:
            skipped = count(report.skipped_answers, "answer")
            self.stdout.write(f"{skipped} that were not VAST answers skipped")
