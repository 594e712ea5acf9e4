"""aggregate_job: long-format responses → the pure core → outcomes, worker quality and the corpus."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from aggregation import services
from aggregation.models import AggregationRun, ItemOutcome, RunState, RunTrigger, WorkerQuality
from aggregation.quality import soft_block
from annotation.models import Job, JobState, Worker
from annotation.work.assignments import NoWorkError, check_can_work
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus import models as corpus
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, MS, MU, U, NV = "SUPPORT", "MILDLY_SUPPORT", "MILDLY_UNDERMINE", "UNDERMINE", "NOT_VALID"


def block_flagged_workers(job_id: int, *, by: Any = None) -> list[Worker]:
    """Soft-block every worker the job's latest aggregation flagged and who is not blocked yet."""
    flagged = WorkerQuality.objects.filter(job_id=job_id, flagged=True, worker__blocked=False)
    return soft_block(flagged, by=by)


def clusters_of(job):
    return {
        item.key: corpus.PerspectiveCluster.objects.get(pk=item.cluster_id)
        for item in job.items.order_by("pk")
    }


def corpus_state():
    return sorted(
        corpus.PerspectiveCluster.objects.values_list(
            "pk", "stance_3", "stance_5", "voter_counts", "agreement", "status", "rule"
        )
    )


def test_stance_labels_votes_agreement_and_status_are_written_to_the_clusters():
    job = stance_job(make_corpus(claims=1, perspectives=3))
    first, second, third = keys(job)
    answer(job, {first: [S, MS, MS], second: [U, NV, S], third: [NV, NV, U]})

    report = services.aggregate_job(job.pk)

    clusters = clusters_of(job)
    kept = clusters[first]
    assert (kept.stance_3, kept.stance_5, kept.voter_counts) == (S, MS, [1, 2, 0, 0, 0])
    assert (kept.agreement, kept.status) == (1.0, corpus.Status.KEPT)
    assert kept.rule == "stance: rho(stance-3) >= 0.5 and majority in {SUPPORT, UNDERMINE}"
    tied = clusters[second]
    assert (tied.stance_3, tied.agreement, tied.status) == ("NO_MAJORITY_LABEL", 0.0, corpus.Status.REJECTED)
    invalid = clusters[third]
    assert (invalid.stance_3, invalid.status) == (NV, corpus.Status.REJECTED)
    assert (report.kept, report.rejected, report.no_majority) == (1, 2, 1)


def test_aggregating_a_job_again_gives_the_same_corpus():
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, U], [U, U, U], [S, NV, U], [MS, S, S]], strict=True)))
    services.aggregate_job(job.pk)
    before = corpus_state()
    outcomes = ItemOutcome.objects.count()

    services.aggregate_job(job.pk)

    assert corpus_state() == before
    assert ItemOutcome.objects.count() == outcomes == 4
    assert AggregationRun.objects.filter(job=job, state=RunState.DONE).count() == 2


def test_a_completed_job_is_aggregated_once_when_asked_once_and_again_after_it_completes_anew():
    job = stance_job(make_corpus(claims=1, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, U], [U, U, U]], strict=True)))
    Job.objects.filter(pk=job.pk).update(state=JobState.COMPLETE, completed_at=timezone.now())

    first = services.aggregate_job(job.pk, trigger=RunTrigger.COMPLETION, once=True)
    second = services.aggregate_job(job.pk, once=True)
    assert second == first
    assert AggregationRun.objects.filter(job=job).count() == 1
    # Completed again later (more work was collected): the next asker aggregates once more.
    Job.objects.filter(pk=job.pk).update(completed_at=timezone.now() + timedelta(seconds=1))
    assert services.aggregate_job(job.pk, once=True).run_id != first.run_id
    assert services.aggregate_job(job.pk).run_id  # asked plainly (staff, the command): always runs
    assert AggregationRun.objects.filter(job=job).count() == 3


def test_the_threshold_and_comparison_are_arguments_recorded_with_the_run():
    job = stance_job(make_corpus(claims=1, perspectives=1), workers_per_item=4)
    (key,) = keys(job)
    answer(job, {key: [S, S, MS, U]})  # ρ = 6/12 = 0.5 exactly

    services.aggregate_job(job.pk)
    assert clusters_of(job)[key].status == corpus.Status.KEPT
    services.aggregate_job(job.pk, overrides={"comparison": ">"})

    cluster = clusters_of(job)[key]
    assert cluster.status == corpus.Status.REJECTED
    assert cluster.rule == "stance: rho(stance-3) > 0.5 and majority in {SUPPORT, UNDERMINE}"
    assert AggregationRun.objects.filter(job=job).first().policy["comparison"] == ">"


def test_a_rerun_decides_with_the_last_runs_policy():
    job = stance_job(make_corpus(claims=1, perspectives=1))
    (key,) = keys(job)
    answer(job, {key: [S, S, U]})  # ρ = 1/3
    services.aggregate_job(job.pk, overrides={"threshold": 0.3})

    services.aggregate_job(job.pk)

    assert clusters_of(job)[key].status == corpus.Status.KEPT
    assert AggregationRun.objects.filter(job=job).first().policy["threshold"] == 0.3


def test_contested_items_are_those_with_low_agreement_or_no_majority():
    job = stance_job(make_corpus(claims=1, perspectives=3))
    clear, split, tied = keys(job)
    answer(job, {clear: [S, S, S], split: [U, U, S], tied: [S, U, NV]})

    services.aggregate_job(job.pk)

    reasons = {o.item.key: o.reasons for o in ItemOutcome.objects.select_related("item")}
    assert reasons[clear] == []
    assert reasons[split] == ["low_agreement"]
    assert reasons[tied] == ["low_agreement", "no_majority"]


def test_a_majority_against_the_crawled_side_is_contested_as_disagreeing_with_gold():
    job = stance_job(make_corpus(claims=1, perspectives=1))  # the factory's first cluster is pro
    (key,) = keys(job)
    answer(job, {key: [U, U, U]})

    services.aggregate_job(job.pk)

    outcome = ItemOutcome.objects.get()
    assert (outcome.reference_label, outcome.reasons) == (S, ["gold"])


def test_a_job_without_responses_is_recorded_as_a_failed_run():
    job = stance_job(make_corpus(claims=1, perspectives=1))

    with pytest.raises(services.AggregationError, match="no responses"):
        services.aggregate_job(job.pk)

    assert AggregationRun.objects.get(job=job).state == RunState.FAILED


def test_an_accepted_paraphrase_joins_its_originals_cluster_and_a_refused_one_does_not():
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    original = cluster.perspectives.get()
    accepted, refused = (
        corpus.Perspective.objects.create(
            pid=900 + n,
            text=f"Put another way {n}",
            source="paraphrase",
            origin=corpus.Origin.PARAPHRASE,
            paraphrase_of=original,
        )
        for n in range(2)
    )
    job = create_job("paraphrase_verification", {"claims": [claim.cid]})
    first, second = keys(job)
    answer(job, {first: ["same", "same", "different"], second: ["different", "different", "same"]})

    services.aggregate_job(job.pk)
    services.aggregate_job(job.pk)

    members = list(
        corpus.ClusterMember.objects.filter(cluster=cluster).values_list("perspective_id", "position")
    )
    assert members == [(original.pk, 0), (accepted.pk, 1)]
    assert refused.pk not in dict(members)


def test_kept_evidence_is_linked_to_the_cluster_and_rejected_evidence_unlinked():
    (claim,) = make_corpus(claims=1, perspectives=2)
    linked, other = claim.clusters.order_by("position")
    evidence = corpus.Evidence.objects.create(
        eid=1, text="A study found that the policy reduced harm by half."
    )
    corpus.ClusterEvidence.objects.create(cluster=linked, evidence=evidence, position=0)
    job = create_job("evidence_verification", {"claims": [claim.cid]})
    wrong_link = f"e1-p{linked.perspectives.get().pid}"
    right_link = f"e1-p{other.perspectives.get().pid}"
    answer(job, {wrong_link: ["not_supported"] * 4, right_link: ["supported"] * 3 + ["not_supported"]})

    services.aggregate_job(job.pk)

    assert list(corpus.ClusterEvidence.objects.values_list("cluster_id", "evidence_id")) == [
        (other.pk, evidence.pk)
    ]


def test_topics_kept_by_a_majority_of_raters_replace_the_claims_topics():
    (claim,) = make_corpus(claims=1, perspectives=1)
    for slug in ("law", "ethics", "economy"):
        corpus.Topic.objects.get_or_create(slug=slug, defaults={"name": slug})
    job = create_job("topic_tagging", {"claims": [claim.cid]}, params={"workers_per_item": 3})
    (key,) = keys(job)
    answer(job, {key: ["ethics,law", "law", "economy,ethics"]})

    services.aggregate_job(job.pk)

    topics = list(corpus.ClaimTopic.objects.filter(claim=claim).values_list("topic__slug", flat=True))
    assert topics == ["ethics", "law"]


def test_a_worker_may_tick_every_topic_and_a_claim_keep_them_all(perspectrum_dir):
    """The release has 18 topics: all of them joined (228 characters) is a valid answer and outcome."""
    rows = json.loads((perspectrum_dir / "topic.json").read_text())
    slugs = sorted({slug for row in rows for slug in row["topics"]})
    (claim,) = make_corpus(claims=1, perspectives=1)
    for slug in slugs:
        corpus.Topic.objects.get_or_create(slug=slug, defaults={"name": slug})
    job = create_job("topic_tagging", {"claims": [claim.cid]}, params={"workers_per_item": 2})
    (key,) = keys(job)
    answer(job, {key: [",".join(slugs)] * 2})

    services.aggregate_job(job.pk)

    assert (
        sorted(corpus.ClaimTopic.objects.filter(claim=claim).values_list("topic__slug", flat=True)) == slugs
    )


def test_workers_who_disagree_with_the_majority_are_flagged_and_can_be_soft_blocked():
    job = stance_job(make_corpus(claims=3, perspectives=4))
    votes = {key: [S, S, U] if n % 2 else [U, U, S] for n, key in enumerate(keys(job))}
    answer(job, votes)  # worker w2 always dissents

    report = services.aggregate_job(job.pk, overrides={"min_worker_responses": 5})
    blocked = block_flagged_workers(job.pk)

    flagged = WorkerQuality.objects.get(flagged=True)
    assert report.flagged_workers == 1
    assert flagged.worker.external_id == "w2" and "low_agreement" in flagged.flags
    assert [worker.external_id for worker in blocked] == ["w2"]
    later = stance_job(make_corpus(claims=1, perspectives=1))
    publish_job(later.pk)
    with pytest.raises(NoWorkError):
        check_can_work(later, blocked[0])


def test_a_completed_job_is_aggregated_after_its_transaction_commits(django_capture_on_commit_callbacks):
    job = create_job(
        "stance", {"claims": [c.cid for c in make_corpus(claims=2, perspectives=3)]}, market="simulated"
    )
    publish_job(job.pk)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = sync_job(job.pk)

    assert job.state == JobState.COMPLETE and callbacks
    run = AggregationRun.objects.get(job=job)
    assert (run.trigger, run.state, run.items) == (RunTrigger.COMPLETION, RunState.DONE, 6)


def test_the_command_prints_kappa_alpha_and_the_counts(capsys):
    job = stance_job(make_corpus(claims=1, perspectives=3))
    answer(job, dict(zip(keys(job), [[S, S, S], [U, U, U], [S, U, NV]], strict=True)))

    call_command("aggregate_job", str(job.pk), "--threshold", "0.5")

    out = capsys.readouterr().out
    # By hand: P̄ = (1 + 1 + 0)/3, P_e = (4² + 4² + 1²)/9², κ = (2/3 − 33/81)/(1 − 33/81) = 0.4375;
    # α = 1 − D_o/D_e with D_o = (6 disagreeing ordered pairs / (3 − 1)) / 9 = 1/3 and
    # D_e = 2·(4·4 + 4·1 + 4·1)/(9·8) = 2/3, so α = 0.5.
    assert "Fleiss' kappa: 0.438" in out and "Krippendorff's alpha: 0.500" in out
    assert "kept: 2  rejected: 1  no majority: 1" in out
