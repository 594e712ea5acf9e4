from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from config.progress import shown_on
from corpus.commands import ReleaseVersionCommand
from export.models import Release
from export.services import ReleaseExistsError, ReleaseVersionError, build_release
from export.splits import DEFAULT_PLAN, Grouping, SplitPlan, SplitPlanError


class Command(ReleaseVersionCommand):
    help = (
        "Build release VERSION under RELEASES_DIR: PERSPECTRUM files, JSONL, schemas, datasheet and a "
        "manifest; record it. Refused when the version exists. --split-seed re-splits the claims first."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--version", required=True, help="release version, e.g. 1.1")
        parser.add_argument("--split-seed", type=int, help="re-split the claims with this seed first")
        parser.add_argument(
            "--split-ratios",
            type=float,
            nargs=3,
            metavar=("TRAIN", "DEV", "TEST"),
            default=DEFAULT_PLAN.ratios,
        )
        parser.add_argument(
            "--split-grouping", choices=[g.value for g in Grouping], default=DEFAULT_PLAN.grouping.value
        )
        parser.add_argument("--notes", default="", help="a note kept with the release record")
        parser.add_argument(
            "--without-machine-labels",
            action="store_true",
            help="leave machine annotators' labels out (the datasheet and manifest say so)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        plan = None
        try:
            if options["split_seed"] is not None:
                plan = SplitPlan(
                    ratios=tuple(options["split_ratios"]),  # type: ignore[arg-type]
                    seed=options["split_seed"],
                    grouping=Grouping(options["split_grouping"]),
                )
            release = build_release(
                options["version"],
                split_plan=plan,
                notes=options["notes"],
                progress=shown_on(self.stderr),
                machine_labels=not options["without_machine_labels"],
            )
        except (ReleaseExistsError, ReleaseVersionError, SplitPlanError) as error:
            raise CommandError(str(error)) from None
        for sentence in release_sentences(release):
            self.stdout.write(sentence)


def release_sentences(release: Release) -> list[str]:
    """What a build made, in sentences: where, the split, the zip."""
    split = release.manifest["split"]
    sizes = ", ".join(
        f"{name} {split['counts'][name]:,} ({split['shares'][name]:.0%})" for name in split["counts"]
    )
    grouping = str(split.get("grouping", "as stored")).replace("_", " ")
    return [
        f"Release {release.version} written to {release.path}: {len(release.files)} files, each listed "
        "with its sha256 and size in manifest.json.",
        f"Claims split ({grouping}): {sizes}.",
        f"Machine labels: {release.manifest.get('machine_labels', 'included')}.",
        f"Zip: {release.zip_path} (sha256 {release.zip_sha256}).",
    ]
