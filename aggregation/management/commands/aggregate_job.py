"""`manage.py aggregate_job JOB`: aggregate a job now; print κ, α and kept/rejected/no-majority counts."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from aggregation.deciding import DECISIONS
from aggregation.models import RunTrigger
from aggregation.policy import DROP_WORKERS, LABEL_MODELS, PolicyError
from aggregation.services import AggregationError, AggregationReport, aggregate_job
from annotation.models import Job
from config.progress import shown_on


class Command(BaseCommand):
    help = "Aggregate a job's responses, write the results back to the corpus, and print the figures."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int, help="the job's id")
        parser.add_argument("--threshold", type=float, help="ρ threshold (default: the last run's, else 0.5)")
        parser.add_argument("--comparison", choices=[">=", ">"], help="how ρ meets the threshold")
        parser.add_argument("--label-model", choices=sorted(LABEL_MODELS), help="worker reliability model")
        parser.add_argument(
            "--decide",
            choices=list(DECISIONS),
            help="who writes the label: the rule (majority and ρ) or the label model (with its posterior)",
        )
        parser.add_argument(
            "--min-posterior", type=float, help="with --decide model: below this posterior, to an expert"
        )
        parser.add_argument(
            "--drop-workers",
            choices=sorted(DROP_WORKERS),
            help="leave out blocked or flagged workers' answers",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        overrides = {
            "threshold": options["threshold"],
            "comparison": options["comparison"],
            "label_model": options["label_model"],
            "drop_workers": options["drop_workers"],
            "decide": options["decide"],
            "min_posterior": options["min_posterior"],
        }
        try:
            report = aggregate_job(
                options["job"],
                overrides=overrides,
                trigger=RunTrigger.COMMAND,
                progress=shown_on(self.stderr),
            )
        except Job.DoesNotExist:
            raise CommandError(f"no job {options['job']}") from None
        except (AggregationError, PolicyError) as error:
            raise CommandError(str(error)) from error
        for line in report_lines(report):
            self.stdout.write(line)


def report_lines(report: AggregationReport) -> list[str]:
    return [
        f"job {report.job_id} ({report.task_type}), run {report.run_id}: {report.rule}",
        f"Fleiss' kappa: {_figure(report.fleiss_kappa)}",
        f"Krippendorff's alpha: {_figure(report.krippendorff_alpha)}",
        f"items: {report.items}  kept: {report.kept}  rejected: {report.rejected}  "
        f"no majority: {report.no_majority}  left as adjudicated: {report.adjudicated}",
        f"flagged workers: {report.flagged_workers}",
        f"changed since the last run: {report.changed_items} items",
        *[f"corpus: {line}" for line in corpus_write_lines(report.corpus_writes)],
    ]


def corpus_write_lines(writes: dict[str, dict[str, int]]) -> list[str]:
    """What the write-back did to rows others wrote last, one line per writer."""
    rewrote = [f"rewrote {n} row(s) last written by {who}" for who, n in writes.get("rewrote", {}).items()]
    removed = [
        f"of them, removed {n} member(s) or link(s) of {who}" for who, n in writes.get("removed", {}).items()
    ]
    return (
        rewrote
        + removed
        + [f"kept {n} row(s) as {who} left them" for who, n in writes.get("kept", {}).items()]
    )


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
