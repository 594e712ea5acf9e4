"""Done-when (issue 5): a simulated-crowd stance job over the PERSPECTRUM release with 20% spammers is
aggregated when it completes, filtered and written back; the aggregate beats the average worker; the
spammers are flagged; an adjudication changes a label and the change appears in a new export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.test import TestCase

from aggregation.adjudication import adjudicate
from aggregation.models import AggregationRun, ItemOutcome, RunTrigger, WorkerQuality
from annotation.models import Job, Response, Worker
from annotation.task_types.builtin_rules import STANCE_5_TO_3
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus.models import Claim, PerspectiveCluster, Status
from export.services import export_perspectrum

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

CLAIMS = 120


@pytest.fixture(scope="module")
def aggregated_job(perspectrum_db: Path, django_db_blocker: Any) -> Job:
    """The first 120 claims' pairs judged by 30 modelled workers (6 spammers), 3 per pair, once per module
    inside the release's transaction; each test's changes roll back with its own savepoint."""
    with django_db_blocker.unblock():
        cids = list(Claim.objects.filter(text_missing=False).order_by("cid").values_list("cid", flat=True))
        crowd = {"size": 30, "spammer_share": 0.2, "seed": 1}
        job = create_job("stance", {"claims": cids[:CLAIMS]}, market="simulated", params={"crowd": crowd})
        publish_job(job.pk)
        # The job's completion enqueues its aggregation on commit; run those callbacks here.
        with TestCase.captureOnCommitCallbacks(execute=True):
            sync_job(job.pk)
        job.refresh_from_db()
    return job


def truth_of(job: Job) -> dict[int, str]:
    return {pk: STANCE_5_TO_3[known] for pk, known in job.items.values_list("pk", "known_answer")}


def test_the_aggregate_is_written_back_and_beats_the_average_simulated_worker(aggregated_job: Job) -> None:
    job, truth = aggregated_job, truth_of(aggregated_job)
    run = AggregationRun.objects.get(job=job)
    assert run.trigger == RunTrigger.COMPLETION and run.items == len(truth)

    right: dict[int, list[bool]] = {}
    for worker, item, label in Response.objects.filter(job=job).values_list("worker_id", "item_id", "label"):
        right.setdefault(worker, []).append(STANCE_5_TO_3[label] == truth[item])
    average_worker = float(np.mean([np.mean(answers) for answers in right.values()]))

    written = dict(job.items.values_list("pk", "cluster__stance_3"))
    aggregate = np.mean([written[pk] == truth[pk] for pk in truth])
    kept = [pk for pk, status in job.items.values_list("pk", "cluster__status") if status == Status.KEPT]
    filtered = np.mean([written[pk] == truth[pk] for pk in kept])
    assert aggregate > average_worker + 0.05
    assert filtered > aggregate and 0 < len(kept) < len(truth)
    assert run.fleiss_kappa is not None and run.krippendorff_alpha is not None


def test_the_spammers_are_flagged(aggregated_job: Job) -> None:
    qualities = WorkerQuality.objects.filter(job=aggregated_job).select_related("worker")
    spammers = {q.worker_id for q in qualities if q.worker.model.get("spammer")}
    flagged = {q.worker_id for q in qualities if q.flagged}
    assert len(spammers) == 6
    assert spammers <= flagged
    assert len(flagged - spammers) <= 2


def test_an_adjudication_changes_a_label_and_a_new_export_shows_it(
    aggregated_job: Job, tmp_path: Path, admin_user: object
) -> None:
    outcome = (
        ItemOutcome.objects.filter(job=aggregated_job, contested=True, label="NO_MAJORITY_LABEL")
        .select_related("item__cluster__claim")
        .order_by("item_id")
        .first()
    )
    assert outcome is not None
    cluster = outcome.item.cluster
    assert cluster is not None and cluster.status == Status.REJECTED
    before = clusters_exported(export_perspectrum("9.0", tmp_path / "before"), cluster.claim.cid)

    adjudicate(outcome.pk, "UNDERMINE", user=admin_user, note="the perspective argues against the claim")

    pids = list(cluster.members.order_by("position").values_list("perspective__pid", flat=True))
    after = clusters_exported(export_perspectrum("9.1", tmp_path / "after"), cluster.claim.cid)
    assert pids not in [entry["pids"] for entry in before]
    exported = next(entry for entry in after if entry["pids"] == pids)
    assert (exported["stance_label_3"], exported["stance_label_5"]) == ("UNDERMINE", "UNDERMINE")
    assert PerspectiveCluster.objects.get(pk=cluster.pk).status == Status.ADJUDICATED
    assert not Worker.objects.filter(simulated=False, responses__job=aggregated_job).exists()


def clusters_exported(files: dict[str, Path], cid: int) -> list[dict[str, object]]:
    claims = json.loads(files["claims"].read_text())
    return next(claim["perspectives"] for claim in claims if claim["cId"] == cid)
