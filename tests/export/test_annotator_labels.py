"""A per-annotator release: every label with its pseudonymous annotator and origin, each item's label
distribution, loadable by `datasets`, with soft labels that sum to 1; the datasheet says so."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from aggregation.adjudication import adjudicate, draw_sample
from aggregation.models import ItemOutcome
from aggregation.services import aggregate_job
from annotation.models import Job, Response
from export.jsonl import label_distribution_records
from export.models import Release
from export.services import build_release
from export.verify import verify_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(simulated_job: Job, releases_dir: Path) -> Release:
    aggregate_job(simulated_job.pk)
    draw_sample(simulated_job.pk, 2)
    expert = User.objects.create_user("expert")
    for outcome in ItemOutcome.objects.filter(job=simulated_job, sampled=True):
        adjudicate(outcome.pk, "SUPPORT", user=expert)
    return build_release("0.1")


def load(release: Release, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    path = str(release.path / "jsonl" / name)
    return datasets.load_dataset("json", data_files=path, cache_dir=str(tmp_path / "cache"))["train"]


def test_soft_labels_round_trip_through_datasets_and_sum_to_one_for_every_item(
    release: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_job: Job
) -> None:
    loaded = load(release, "label_distributions.jsonl", tmp_path, monkeypatch)
    items = set(Response.objects.filter(job=simulated_job, is_gold=False).values_list("item__key", flat=True))

    assert loaded.num_rows == len(items) > 0
    for row in loaded:
        assert sum(row["soft_label"]) == pytest.approx(1.0, abs=1e-9)
        assert len(row["labels"]) == len(row["counts"]) == len(row["soft_label"])
        assert sum(row["counts"]) == row["annotators"] == simulated_job.workers_per_item
    assert set(loaded["item"]) == items
    assert verify_release(release.path) == []


def test_every_label_keeps_its_pseudonymous_annotator_and_its_origin(
    release: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_job: Job
) -> None:
    loaded = load(release, "annotations.jsonl", tmp_path, monkeypatch)

    origins = Counter(loaded["origin"])
    assert origins == {"crowd": simulated_job.responses.count(), "expert": 2}
    assert all(worker.startswith("w_") for worker in loaded["worker"])
    raw = set(simulated_job.responses.values_list("worker__external_id", flat=True))
    assert not raw & set(loaded["worker"])
    sheet = (release.path / "datasheet.md").read_text()
    assert "## Each annotator's labels" in sheet and "2 from the expert" in sheet


def test_the_distribution_counts_only_the_crowds_answers_in_the_tasks_label_order() -> None:
    base = {"job_id": 1, "task_type": "t", "claim_id": None, "perspective_id": None, "evidence_id": None}
    rows = [
        {**base, "item": "a", "label": "NO", "origin": "crowd"},
        {**base, "item": "a", "label": "YES", "origin": "crowd"},
        {**base, "item": "a", "label": "YES", "origin": "crowd"},
        {**base, "item": "a", "label": "NO", "origin": "expert"},
        {**base, "item": "a", "label": "YES", "origin": "crowd", "gold": True},
        {**base, "item": "b", "label": "MAYBE", "origin": "crowd"},  # not one of the task's labels
    ]
    [record] = label_distribution_records(rows, {"t": ["YES", "NO"]})
    assert (record["item"], record["counts"], record["soft_label"]) == ("a", [2, 1], [2 / 3, 1 / 3])
