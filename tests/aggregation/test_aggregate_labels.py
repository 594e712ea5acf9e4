"""Labels decided by the label model, and `aggregate_labels` for labels collected anywhere."""

from __future__ import annotations

import csv
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from aggregation import services
from aggregation.models import ItemOutcome
from aggregation.streaming import read_labels
from annotation.models import Job
from annotation.task_types.builtin_rules import STANCE_5_TO_3
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.records import long_format
from corpus.models import PerspectiveCluster, Status
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db
STANCE_3 = ["SUPPORT", "UNDERMINE", "NOT_VALID"]
STANCE_5 = ["SUPPORT", "MILDLY_SUPPORT", "MILDLY_UNDERMINE", "UNDERMINE", "NOT_VALID"]


@pytest.fixture
def simulated_job(django_capture_on_commit_callbacks: Any) -> Job:
    """A stance job done by a simulated crowd of 12 (20% spammers), three answers per pair."""
    claims = make_corpus(claims=12, perspectives=3)
    crowd = {"size": 12, "spammer_share": 0.2, "seed": 11}
    job = create_job(
        "stance", {"claims": [c.cid for c in claims]}, market="simulated", params={"crowd": crowd}
    )
    publish_job(job.pk)
    with django_capture_on_commit_callbacks(execute=False):
        sync_job(job.pk)
    return job


def export_long_format(job: Job, path: Path, *, five_way: bool = False) -> Path:
    """The job's counted answers as any crowd would hand them over: item,worker,label (3-way, or the
    workers' own 5 labels)."""
    keys = dict(job.items.values_list("pk", "key"))
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["item", "worker", "label"])
        for item, worker, label in long_format(job, include_gold=True).order_by("pk"):
            writer.writerow([keys[item], f"w{worker}", label if five_way else STANCE_5_TO_3[label]])
    return path


@pytest.mark.parametrize("decide", ["rule", "model"])
def test_aggregate_labels_reproduces_aggregate_jobs_labels(
    simulated_job: Job, tmp_path: Path, decide: str
) -> None:
    services.aggregate_job(simulated_job.pk, overrides={"decide": decide, "min_posterior": 0.9})
    source = export_long_format(simulated_job, tmp_path / "labels.csv")
    out = tmp_path / "out.csv"
    call_command(
        "aggregate_labels",
        str(source),
        "--labels",
        ",".join(STANCE_3),
        "--decide",
        decide,
        *(["--threshold", "0.9"] if decide == "model" else []),
        "--out",
        str(out),
        stdout=StringIO(),
        stderr=StringIO(),
    )

    table = pd.read_csv(out, keep_default_na=False)
    assert list(table.columns) == ["item", "label", "agreement", "status", "model_label", "confidence"]
    outcomes = {o.item.key: o for o in ItemOutcome.objects.filter(job=simulated_job).select_related("item")}
    assert sorted(table["item"]) == sorted(outcomes)
    for row in table.itertuples():
        outcome = outcomes[row.item]
        assert (row.label, row.model_label) == (outcome.label, outcome.model_label)
        assert row.agreement == pytest.approx(outcome.agreement, abs=1e-6)
        assert row.confidence == pytest.approx(outcome.model_confidence, abs=1e-5)
    if decide == "model":
        assert (table["label"] == table["model_label"]).all()
        assert set(table.loc[table["confidence"] < 0.9, "status"]) <= {"rejected"}


@pytest.mark.parametrize("spelling", ["answers", "decided"])
def test_aggregate_labels_deciding_by_rule_keeps_exactly_what_aggregate_job_keeps(
    simulated_job: Job, tmp_path: Path, spelling: str
) -> None:
    services.aggregate_job(simulated_job.pk, overrides={"decide": "rule"})
    source = export_long_format(simulated_job, tmp_path / "labels.csv", five_way=spelling == "answers")
    out, said = tmp_path / "out.csv", StringIO()
    labels = STANCE_5 if spelling == "answers" else STANCE_3
    call_command(
        "aggregate_labels",
        str(source),
        "--labels",
        ",".join(labels),
        "--decide",
        "rule",
        "--out",
        str(out),
        stdout=said,
        stderr=StringIO(),
    )

    table = pd.read_csv(out, keep_default_na=False)
    outcomes = ItemOutcome.objects.filter(job=simulated_job)
    kept = set(outcomes.filter(status="kept").values_list("item__key", flat=True))
    assert 0 < len(kept) < outcomes.count()
    assert set(table.loc[table["status"] == "kept", "item"]) == kept
    assert f"{len(kept)} kept (rule stance: rho(stance-3) >= 0.5" in said.getvalue()


def test_with_the_model_deciding_its_label_is_written_and_unsure_items_go_to_an_expert(
    simulated_job: Job,
) -> None:
    report = services.aggregate_job(simulated_job.pk, overrides={"decide": "model", "min_posterior": 0.999})
    outcomes = list(ItemOutcome.objects.filter(job=simulated_job).select_related("item__cluster"))
    for outcome in outcomes:
        assert outcome.label == outcome.model_label
        unsure = outcome.model_confidence < 0.999
        assert ("low_posterior" in outcome.reasons) == unsure
        if unsure:
            assert outcome.status == "rejected" and outcome.contested
        if not outcome.item.is_gold and outcome.label in ("SUPPORT", "UNDERMINE") and not unsure:
            cluster = PerspectiveCluster.objects.get(pk=outcome.item.cluster_id)
            assert (cluster.stance_3, cluster.status) == (outcome.label, Status.KEPT)
            assert STANCE_5_TO_3[cluster.stance_5] == cluster.stance_3  # the 5-way label agrees
    assert report.kept == sum(o.status == "kept" for o in outcomes)
    assert simulated_job.aggregation_runs.order_by("-pk").first().policy["decide"] == "model"


def aggregate_by_model(job: Job, min_posterior: str) -> None:
    """`manage.py aggregate_job` deciding by the model, at this least posterior."""
    command = ["aggregate_job", str(job.pk), "--decide", "model", "--min-posterior", min_posterior]
    call_command(*command, stdout=StringIO(), stderr=StringIO())


def test_the_command_takes_decide_and_min_posterior(simulated_job: Job) -> None:
    aggregate_by_model(simulated_job, "0.8")
    assert simulated_job.aggregation_runs.order_by("-pk").first().policy["min_posterior"] == 0.8
    with pytest.raises(CommandError):
        aggregate_by_model(simulated_job, "2")


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("item,label,worker\n1,a,w\n", "header"),
        ("item,worker,label\n1,w1,a\n1,w2,zebra\n", "line 3"),
        ("item,worker,label\n", "no rows"),
        ("", "no rows"),
        ("item,worker,label\n1,w1,a\n2,w1,b\n", "single rater"),
    ],
)
def test_a_bad_labels_file_gets_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    source = write(tmp_path / "in.csv", text)
    with pytest.raises(CommandError, match=message):
        call_command("aggregate_labels", str(source), "--labels", "a,b", "--out", str(tmp_path / "o.csv"))
    assert not (tmp_path / "o.csv").exists()


def test_reading_in_small_chunks_gives_the_same_codes(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    pairs = rng.choice(100 * 9, size=500, replace=False)  # each worker labels an item once
    rows = [(f"i{pair // 9}", f"w{pair % 9}", "abc"[rng.integers(3)]) for pair in pairs]
    source = write(tmp_path / "in.csv", "item,worker,label\n" + "".join(f"{i},{w},{x}\n" for i, w, x in rows))
    whole, chunked = read_labels(source, "abc"), read_labels(source, "abc", chunk_rows=7)
    assert whole.item_names == chunked.item_names
    for a, b in [
        (whole.item_codes, chunked.item_codes),
        (whole.worker_codes, chunked.worker_codes),
        (whole.label_codes, chunked.label_codes),
    ]:
        assert np.array_equal(a, b)
    assert [whole.item_names[c] for c in whole.item_codes[:5]] == [r[0] for r in rows[:5]]
