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
