"""Staff pages: the job dashboard, a claim's clusters (merge, split), two claims side by side (copy)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from aggregation import services
from aggregation.models import ItemOutcome, WorkerQuality
from aggregation.trimming import TrimmingError, flip_votes, split_cluster
from annotation.models import Worker
from corpus.models import ClusterEvidence, ClusterMember, Evidence, PerspectiveCluster, Status
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import PerspectiveFactory, make_corpus

pytestmark = pytest.mark.django_db

S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"


@pytest.fixture
def job():
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, S], [U, U, S], [S, U, NV], [U, U, U]], strict=True)))
    services.aggregate_job(job.pk)
    return job


def members(cluster):
    return list(cluster.members.order_by("position").values_list("perspective__pid", flat=True))


def test_the_dashboard_shows_progress_kappa_alpha_and_server_drawn_charts(admin_client, job):
    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk]))
    html = page.content.decode()
    run = job.aggregation_runs.get()
    assert page.status_code == 200
    assert f'<td id="kappa">{run.fleiss_kappa:.3f}</td>' in html
    assert f'<td id="alpha">{run.krippendorff_alpha:.3f}</td>' in html
    assert html.count("<svg") >= 3 and "agreement ρ" in html
    assert "kept 2, rejected 2" in html


def test_the_dashboard_is_for_staff_only(client, job):
    page = client.get(reverse("aggregation:dashboard", args=[job.pk]))
    assert page.status_code == 302 and "/admin/login/" in page["Location"]


def test_the_dashboard_draws_the_accuracy_sample(admin_client, job):
    url = reverse("aggregation:dashboard", args=[job.pk])
    admin_client.post(url, {"action": "sample", "size": 2, "seed": 0})
    assert ItemOutcome.objects.filter(job=job, sampled=True).count() == 2
    assert "None of the 2 sampled items is adjudicated yet." in admin_client.get(url).content.decode()


def test_blocking_flagged_workers_from_the_dashboard_runs_as_a_background_operation(
    admin_client, job, django_capture_on_commit_callbacks
):
    quality = WorkerQuality.objects.filter(job=job).order_by("pk").first()
    WorkerQuality.objects.filter(pk=quality.pk).update(flagged=True, flags=[])
    with django_capture_on_commit_callbacks(execute=False) as queued:
        admin_client.post(reverse("aggregation:dashboard", args=[job.pk]), {"action": "block"})
    assert queued and not Worker.objects.get(pk=quality.worker_id).blocked  # the request blocks nobody

    for callback in queued:
        callback()

    worker = Worker.objects.get(pk=quality.worker_id)
    assert worker.blocked and worker.blocked_reason == f"job {job.pk}: staff decision by admin"


def test_aggregating_from_the_dashboard_applies_the_new_threshold(
    admin_client, job, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as enqueued:
        admin_client.post(
            reverse("aggregation:dashboard", args=[job.pk]),
            {"action": "aggregate", "threshold": "0.3", "comparison": ""},
        )
    assert len(enqueued) == 1
    assert job.aggregation_runs.first().policy["threshold"] == 0.3
    assert job.aggregation_runs.first().kept == 3  # the 2–1 split (ρ = 1/3) now passes


def test_merging_two_clusters_keeps_the_first_and_moves_the_members_and_evidence(admin_client):
    (claim,) = make_corpus(claims=1, perspectives=3)
    first, second, _third = claim.clusters.order_by("position")
    evidence = Evidence.objects.create(eid=7, text="Evidence text long enough to count here.")
    ClusterEvidence.objects.create(cluster=second, evidence=evidence, position=0)
    expected = members(first) + members(second)

    admin_client.post(
        reverse("aggregation:claim_clusters", args=[claim.cid]),
        {"action": "merge", "clusters": [first.pk, second.pk]},
    )

    assert list(claim.clusters.order_by("position").values_list("pk", flat=True)) == [first.pk, _third.pk]
    assert members(first) == expected
    assert list(first.evidence.values_list("eid", flat=True)) == [7]


def test_splitting_moves_chosen_members_to_a_new_cluster_with_the_same_stance(admin_client):
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    extra = PerspectiveFactory()
    ClusterMember.objects.create(cluster=cluster, perspective=extra, position=1)

    admin_client.post(
        reverse("aggregation:claim_clusters", args=[claim.cid]),
        {"action": "split", "cluster": cluster.pk, "perspectives": [extra.pk]},
    )

    new = claim.clusters.get(position=1)
    assert members(new) == [extra.pid] and members(cluster) == [cluster.perspectives.get().pid]
    assert (new.stance_5, new.stance_3) == (cluster.stance_5, cluster.stance_3)


def test_the_original_perspective_cannot_be_split_off():
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    with pytest.raises(TrimmingError, match="original"):
        split_cluster(cluster.pk, [cluster.perspectives.get().pk])


def test_copying_to_an_opposing_claim_flips_the_stance_and_the_votes(admin_client):
    source, target = make_corpus(claims=2, perspectives=1)
    cluster = source.clusters.get()
    PerspectiveCluster.objects.filter(pk=cluster.pk).update(voter_counts=[2, 1, 0, 0, 0], status=Status.KEPT)
    url = reverse("aggregation:compare_claims", args=[source.cid, target.cid])

    assert source.text in admin_client.get(url).content.decode()
    admin_client.post(url, {"clusters": [cluster.pk], "oppose": "on"})
    admin_client.post(url, {"clusters": [cluster.pk], "oppose": "on"})  # a second copy is refused quietly

    copied = target.clusters.order_by("position").last()
    assert target.clusters.count() == 2
    assert (copied.stance_3, copied.stance_5, copied.voter_counts) == (U, U, [0, 0, 1, 2, 0])
    assert members(copied) == members(cluster) and "stance flipped" in copied.rule


def test_flipping_votes_swaps_the_sides_and_keeps_not_valid():
    assert flip_votes([3, 2, 1, 0, 4]) == [0, 1, 2, 3, 4]


def test_each_workers_row_on_the_dashboard_shows_their_confusion_matrix(admin_client, job):
    quality = job.worker_qualities.order_by("worker_id").first()
    assert quality.confusion["labels"] == ["SUPPORT", "UNDERMINE", "NOT_VALID"]
    assert all(sum(row) == pytest.approx(1.0, abs=1e-3) for row in quality.confusion["matrix"])
    html = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    assert "<h2>Workers</h2>" in html and "true \\ given" in html
    assert f"<td>{quality.worker}</td>" in html
