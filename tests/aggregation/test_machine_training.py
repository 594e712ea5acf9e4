"""The local machine annotator trained on a job's decided labels (issue 46, item 4): `train_annotator`
reports cross-validated accuracy and calibration; the machine never labels an item it was trained on."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from aggregation import services
from aggregation.machine_training import label_job, train_local
from annotation.machines.models import MachineAnnotator
from annotation.models import Response, ResponseOrigin
from corpus.models import Claim, PerspectiveCluster, Status
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, U = "SUPPORT", "UNDERMINE"
FOR = ["a great benefit that helps people", "good for everyone and fair", "it protects and improves lives"]
AGAINST = ["a real harm that hurts people", "bad for everyone and unfair", "it endangers and worsens lives"]


def decided_job(claims: int = 6):
    """A stance job whose perspectives say plainly which side they take, decided by three people each."""
    job = stance_job(make_corpus(claims=claims, perspectives=4))
    for index, item in enumerate(job.items.order_by("pk")):
        side = index % 2
        item.payload = {**item.payload, "perspective": (FOR, AGAINST)[side][index % 3] + f" number {index}"}
        item.save(update_fields=["payload"])
    answer(job, {key: [(S, U)[i % 2]] * 3 for i, key in enumerate(keys(job))})
    services.aggregate_job(job.pk)
    return job


@pytest.fixture(autouse=True)
def var_dir(tmp_path: Path):
    with override_settings(VAR_DIR=tmp_path):
        yield tmp_path


def test_training_reports_cross_validated_accuracy_and_calibration_and_saves_a_version(var_dir: Path) -> None:
    job = decided_job()
    out = StringIO()
    call_command("train_annotator", "stance", "--from-jobs", str(job.pk), stdout=out)
    machine = MachineAnnotator.objects.get()
    assert (machine.name, machine.version, machine.backend) == ("local-stance", 1, "local")
    assert machine.settings["examples"] == 24 and machine.settings["cv_accuracy"] >= 0.9
    assert "cross-validated accuracy=" in out.getvalue() and "ECE of its scores=" in out.getvalue()
    assert (var_dir / "machines" / "local-stance-v1.pickle").is_file()


def test_the_machine_never_labels_an_item_it_was_trained_on() -> None:
    trained_on = decided_job()
    train_local("m", "stance", [trained_on.pk])
    machine = MachineAnnotator.objects.get()
    written, skipped, scores = label_job(machine, trained_on)
    assert (written, skipped, scores) == (0, 24, {})
    fresh = decided_job(claims=2)
    written, skipped, scores = label_job(machine, fresh)
    assert (written, skipped) == (8, 0) and len(scores) == 8
    labels = Response.objects.filter(job=fresh, origin=ResponseOrigin.MACHINE)
    assert labels.count() == 8 and labels.filter(assignment__isnull=True).count() == 8


def test_too_few_decisions_to_cross_validate_is_a_clear_error() -> None:
    job = decided_job(claims=2)
    with pytest.raises(CommandError, match="at least 5 groups"):
        call_command("train_annotator", "stance", "--from-jobs", str(job.pk))


def test_bad_job_ids_are_a_clear_error() -> None:
    with pytest.raises(CommandError, match="job ids, comma-separated"):
        call_command("train_annotator", "stance", "--from-jobs", "three")


def split_corpus() -> dict[str, list[int]]:
    """Eight claims with kept stances: five of the train split, one of dev, two of test."""
    claims = make_corpus(claims=8, perspectives=4, status=Status.KEPT)
    splits = ["train"] * 5 + ["dev"] + ["test"] * 2
    for claim, split in zip(claims, splits, strict=True):
        Claim.objects.filter(pk=claim.pk).update(split=split)
    return {split: [c.pk for c, s in zip(claims, splits, strict=True) if s == split] for split in set(splits)}


def test_train_annotator_trains_stance_on_the_corpus_splits(var_dir: Path) -> None:
    claims = split_corpus()
    out = StringIO()
    call_command("train_annotator", "stance", "--from-splits", "train,dev", stdout=out)
    machine = MachineAnnotator.objects.get()
    decided = PerspectiveCluster.objects.filter(
        claim_id__in=claims["train"] + claims["dev"], stance_3__in=["SUPPORT", "UNDERMINE"]
    )
    assert (machine.name, machine.settings["splits"]) == ("local-stance", ["train", "dev"])
    assert machine.settings["examples"] == decided.count() > 0
    assert f"on {decided.count()} decided items: cross-validated accuracy=" in out.getvalue()
    assert (var_dir / "machines" / "local-stance-v1.pickle").is_file()


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            ["paraphrase_verification", "--from-splits", "train"],
            "reads perspective, candidate: train it with --from-jobs",
        ),
        (["stance", "--from-splits", "train,holdout"], "splits among train, dev, test"),
        (["stance", "--from-splits", "train", "--from-jobs", "1"], "not allowed with argument"),
        (["stance"], "one of the arguments --from-jobs --from-splits is required"),
    ],
)
def test_a_bad_source_is_a_clear_error(arguments: list[str], said: str) -> None:
    split_corpus()
    with pytest.raises(CommandError, match=said):
        call_command("train_annotator", *arguments)
    assert not MachineAnnotator.objects.exists()
