"""The built-in task types' write-backs as a job writes them: a person's evidence link, member and
topics stay, other writers' rows are rewritten and counted, and what a job adds says it is the job's."""

from __future__ import annotations

import pytest

from aggregation.trimming import split_cluster
from annotation.task_types.decisions import Decision
from annotation.task_types.evidence_verification import write_evidence
from annotation.task_types.paraphrase_verification import write_paraphrases
from annotation.task_types.topic_tagging import write_topics
from corpus import provenance
from corpus.models import (
    ClaimTopic,
    ClusterEvidence,
    ClusterMember,
    Evidence,
    Perspective,
    PerspectiveCluster,
    Removal,
    WrittenBy,
)
from corpus.provenance import Writer
from tests.annotation.factories import make_corpus, tag

pytestmark = pytest.mark.django_db
JOB = Writer.job(12, "aggregation run 3")
PERSON = Writer.person(None, "admin edit")


def decision(kept: bool, **ids: int) -> Decision:
    return Decision(item_id=1, label="x", fine_label="x", counts=[], agreement=None, kept=kept, **ids)


@pytest.fixture
def linked():
    """A claim whose first cluster has an evidence link a person made and one the release made."""
    (claim,) = make_corpus(claims=1, perspectives=2)
    cluster = claim.clusters.order_by("position").first()
    by_person = Evidence.objects.create(eid=1, text="a person linked this")
    by_release = Evidence.objects.create(eid=2, text="the release linked this")
    ClusterEvidence.objects.create(cluster=cluster, evidence=by_person, position=0, **PERSON.fields())
    ClusterEvidence.objects.create(cluster=cluster, evidence=by_release, position=1)
    return cluster, cluster.members.get(position=0).perspective_id


def test_a_rejected_pair_never_removes_a_link_a_person_made(linked) -> None:
    cluster, perspective = linked
    refused = [decision(False, perspective_id=perspective, evidence_id=e.pk) for e in Evidence.objects.all()]

    with provenance.writing(JOB) as log:
        write_evidence(refused)

    assert list(cluster.evidence_links.values_list("evidence__eid", flat=True)) == [1]
    assert log.detail() == {
        "rewrote": {"import: ": 1},
        "kept": {"person: admin edit by system": 1},
        "removed": {"import: ": 1},
    }
    cluster.refresh_from_db()
    assert cluster.written_ref == JOB.ref  # its links changed: the cluster says who changed it


def test_a_kept_pair_adds_a_link_that_says_it_is_the_jobs(linked) -> None:
    cluster, perspective = linked
    new = Evidence.objects.create(eid=3, text="the crowd found this")

    with provenance.writing(JOB):
        write_evidence([decision(True, perspective_id=perspective, evidence_id=new.pk)])

    link = ClusterEvidence.objects.get(evidence=new)
    assert (link.cluster_id, link.position, link.written_ref) == (cluster.pk, 2, JOB.ref)


def test_a_refused_paraphrase_stays_when_a_person_put_it_in_the_cluster() -> None:
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    paraphrase = Perspective.objects.create(pid=900, text="said otherwise")
    ClusterMember.objects.create(cluster=cluster, perspective=paraphrase, position=1, **PERSON.fields())

    with provenance.writing(JOB) as log:
        write_paraphrases([decision(False, cluster_id=cluster.pk, perspective_id=paraphrase.pk)])

    assert cluster.members.filter(perspective=paraphrase).exists()
    assert log.kept == {"person: admin edit by system": 1}


def test_topics_a_person_set_are_kept_and_others_replaced() -> None:
    first, second = make_corpus(claims=2, perspectives=1)
    tag(first, "law")
    ClaimTopic.objects.filter(claim=first).update(**PERSON.fields())
    tag(second, "law")

    with provenance.writing(JOB) as log:
        write_topics({first.pk: ["ethics"], second.pk: ["ethics"]})

    assert list(first.claim_topics.values_list("topic__slug", flat=True)) == ["law"]
    assert list(second.claim_topics.values_list("topic__slug", "written_ref")) == [("ethics", JOB.ref)]
    assert log.detail() == {"rewrote": {"import: ": 1}, "kept": {"person: admin edit by system": 1}}


def test_an_adjudication_writes_as_the_person_over_anything() -> None:
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    PerspectiveCluster.objects.filter(pk=cluster.pk).update(**Writer.person(None, "merge").fields())

    with provenance.writing(Writer.person(None, "adjudication")):
        write_topics({claim.pk: ["ethics"]})

    assert claim.claim_topics.get().written_ref == "adjudication by system"


def test_a_link_a_person_removed_is_never_added_back_by_a_job(linked) -> None:
    cluster, perspective = linked
    by_release = Evidence.objects.get(eid=2)
    pair = {"perspective_id": perspective, "evidence_id": by_release.pk}
    with provenance.writing(Writer.person(None, "adjudication")):
        write_evidence([decision(False, **pair)])

    with provenance.writing(JOB) as log:
        write_evidence([decision(True, **pair)])

    assert list(cluster.evidence_links.values_list("evidence__eid", flat=True)) == [1]
    assert log.kept == {"person: adjudication by system (removed)": 1}
    removal = Removal.objects.get()
    assert (removal.cluster_id, removal.evidence_id, removal.written_by) == (
        cluster.pk,
        by_release.pk,
        WrittenBy.PERSON,
    )


def test_a_person_adding_back_a_link_they_removed_lifts_the_removal(linked) -> None:
    cluster, perspective = linked
    pair = {"perspective_id": perspective, "evidence_id": Evidence.objects.get(eid=2).pk}
    with provenance.writing(Writer.person(None, "adjudication")):
        write_evidence([decision(False, **pair)])

    with provenance.writing(Writer.person(None, "adjudication")):
        write_evidence([decision(True, **pair)])

    assert sorted(cluster.evidence_links.values_list("evidence__eid", flat=True)) == [1, 2]
    assert not Removal.objects.exists()


def test_a_member_a_person_split_off_is_never_put_back_by_a_paraphrase_job() -> None:
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    paraphrase = Perspective.objects.create(pid=900, text="said otherwise")
    ClusterMember.objects.create(cluster=cluster, perspective=paraphrase, position=1)
    split_cluster(cluster.pk, [paraphrase.pk])

    with provenance.writing(JOB) as log:
        write_paraphrases([decision(True, cluster_id=cluster.pk, perspective_id=paraphrase.pk)])

    assert not cluster.members.filter(perspective=paraphrase).exists()
    assert log.kept == {"person: split by system (removed)": 1}


@pytest.fixture
def two_members():
    """A cluster of two equivalent perspectives and an evidence link a crawl made."""
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    paraphrase = Perspective.objects.create(pid=900, text="said otherwise")
    ClusterMember.objects.create(cluster=cluster, perspective=paraphrase, position=1)
    crawled = Evidence.objects.create(eid=1, text="a crawled paragraph")
    ClusterEvidence.objects.create(cluster=cluster, evidence=crawled, position=0, **Writer.crawl(4).fields())
    original = cluster.members.get(position=0).perspective_id
    return cluster, crawled, original, paraphrase.pk


@pytest.mark.parametrize("order", [1, -1])
def test_a_link_stays_whatever_the_order_when_one_decision_of_the_job_supports_it(two_members, order) -> None:
    cluster, crawled, original, paraphrase = two_members
    decisions = [
        decision(True, perspective_id=original, evidence_id=crawled.pk),
        decision(False, perspective_id=paraphrase, evidence_id=crawled.pk),
    ]

    with provenance.writing(JOB) as log:
        write_evidence(decisions[::order])

    assert list(cluster.evidence_links.values_list("evidence__eid", "written_ref")) == [(1, "crawl run 4")]
    assert log.detail() == {"rewrote": {}, "kept": {}}


def test_a_link_every_decision_of_the_job_rejects_is_removed_and_reported(two_members) -> None:
    cluster, crawled, original, paraphrase = two_members
    decisions = [decision(False, perspective_id=p, evidence_id=crawled.pk) for p in (original, paraphrase)]

    with provenance.writing(JOB) as log:
        write_evidence(decisions)

    assert not cluster.evidence_links.exists()
    assert log.detail() == {
        "rewrote": {"crawl: crawl run 4": 1},
        "kept": {},
        "removed": {"crawl: crawl run 4": 1},
    }


def test_evidence_a_split_leaves_behind_stays_though_only_the_member_split_off_supported_it(
    two_members,
) -> None:
    cluster, crawled, original, paraphrase = two_members
    decisions = [
        decision(False, perspective_id=original, evidence_id=crawled.pk),
        decision(True, perspective_id=paraphrase, evidence_id=crawled.pk),
    ]
    with provenance.writing(JOB):
        write_evidence(decisions)
    split_cluster(cluster.pk, [paraphrase])

    with provenance.writing(JOB) as log:
        write_evidence(decisions)

    assert list(cluster.evidence_links.values_list("evidence__eid", "written_ref")) == [
        (1, "split by system")
    ]
    assert log.kept == {"person: split by system": 1}


def test_a_link_an_expert_confirmed_stays_when_the_rest_of_the_job_rejects_it(two_members) -> None:
    cluster, crawled, original, paraphrase = two_members
    with provenance.writing(Writer.person(None, "adjudication")):
        write_evidence([decision(True, perspective_id=original, evidence_id=crawled.pk)])

    with provenance.writing(JOB) as log:
        write_evidence([decision(False, perspective_id=paraphrase, evidence_id=crawled.pk)])

    assert list(cluster.evidence_links.values_list("written_ref", flat=True)) == ["adjudication by system"]
    assert log.kept == {"person: adjudication by system": 1}
