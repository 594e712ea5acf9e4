"""The write-back of aggregate_job as the job's writer: a re-run never undoes a person's decision, and
what it rewrites of other writers' rows is said on the run, by the command and in the audit trail."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.models import AuditEvent
from aggregation import services
from aggregation.adjudication import adjudicate
from aggregation.models import ItemOutcome
from aggregation.trimming import merge_clusters
from annotation.work.jobs import create_job
from corpus.models import ClusterEvidence, Evidence, PerspectiveCluster, Removal, WrittenBy
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, MS, U, NV = "SUPPORT", "MILDLY_SUPPORT", "UNDERMINE", "NOT_VALID"


@pytest.fixture
def expert():
    return get_user_model().objects.create_user("expert")


def answered_job():
    job = stance_job(make_corpus(claims=1, perspectives=3))
    first, second, third = keys(job)
    answer(job, {first: [S, S, MS], second: [U, U, U], third: [NV, NV, U]})
    return job


def test_written_clusters_say_which_job_and_run_wrote_them():
    job = answered_job()

    report = services.aggregate_job(job.pk)

    refs = set(PerspectiveCluster.objects.values_list("written_by", "written_ref"))
    assert refs == {(WrittenBy.JOB, f"job {job.pk}, aggregation run {report.run_id}")}


def test_the_first_write_back_over_imported_rows_says_so_in_its_report_and_the_audit_trail():
    job = answered_job()

    report = services.aggregate_job(job.pk)

    assert report.corpus_writes["rewrote"] == {"import: ": 3}
    event = AuditEvent.objects.get(action=AuditEvent.Action.WROTE_OVER)
    assert event.target == f"job {job.pk}" and event.detail["rewrote"] == {"import: ": 3}


def test_a_rerun_rewrites_its_own_rows_without_a_word():
    job = answered_job()
    services.aggregate_job(job.pk)

    again = services.aggregate_job(job.pk)

    assert again.corpus_writes == {}
    assert AuditEvent.objects.filter(action=AuditEvent.Action.WROTE_OVER).count() == 1


def test_reaggregating_never_undoes_an_expert_merge(expert):
    job = answered_job()
    services.aggregate_job(job.pk)
    clusters = list(PerspectiveCluster.objects.order_by("position"))
    merged = merge_clusters([clusters[0].pk, clusters[1].pk], user=expert)
    before = PerspectiveCluster.objects.filter(pk=merged.pk).values("stance_3", "status", "rule").get()

    report = services.aggregate_job(job.pk)

    assert (
        PerspectiveCluster.objects.filter(pk=merged.pk).values("stance_3", "status", "rule").get() == before
    )
    assert report.corpus_writes["kept"] == {"person: merge by expert": 1}


def test_reaggregating_never_undoes_an_expert_label_even_from_another_job(expert):
    first_job = answered_job()
    services.aggregate_job(first_job.pk)
    outcome = ItemOutcome.objects.filter(job=first_job).order_by("item_id").first()
    adjudicate(outcome.pk, U, user=expert)
    cluster = PerspectiveCluster.objects.get(pk=outcome.item.cluster_id)
    second_job = stance_job([cluster.claim])
    answer(second_job, {key: [S, S, S] for key in keys(second_job)}, prefix="x")

    report = services.aggregate_job(second_job.pk)

    cluster.refresh_from_db()
    assert (cluster.stance_3, cluster.written_by) == (U, WrittenBy.PERSON)
    assert list(report.corpus_writes["kept"].values()) == [1]


def test_the_command_prints_what_the_write_back_did_to_others_rows():
    job = answered_job()
    out = StringIO()

    call_command("aggregate_job", str(job.pk), stdout=out)

    assert "corpus: rewrote 3 row(s) last written by import: " in out.getvalue()


def test_a_link_an_expert_rejected_is_not_added_back_by_the_next_evidence_job(expert):
    (claim,) = make_corpus(claims=1, perspectives=2)
    linked, other = claim.clusters.order_by("position")
    evidence = Evidence.objects.create(eid=1, text="A study found that the policy reduced harm by half.")
    ClusterEvidence.objects.create(cluster=linked, evidence=evidence, position=0)
    first_job = create_job("evidence_verification", {"claims": [claim.cid]})
    rejected = f"e1-p{linked.perspectives.get().pid}"
    answer(first_job, {key: ["supported"] * 4 for key in keys(first_job)})
    services.aggregate_job(first_job.pk)
    adjudicate(ItemOutcome.objects.get(job=first_job, item__key=rejected).pk, "NOT_SUPPORTED", user=expert)
    assert not linked.evidence_links.exists()
    second_job = create_job("evidence_verification", {"claims": [claim.cid]})
    answer(second_job, {key: ["supported"] * 4 for key in keys(second_job)}, prefix="x")

    report = services.aggregate_job(second_job.pk)

    assert not linked.evidence_links.exists() and other.evidence_links.filter(evidence=evidence).exists()
    (who,) = report.corpus_writes["kept"]
    assert who.startswith("person: adjudication of item e1-p") and who.endswith("by expert (removed)")
    assert Removal.objects.get().cluster_id == linked.pk
