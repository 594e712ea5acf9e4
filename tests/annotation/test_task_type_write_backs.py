"""The built-in task types' write-backs as a job writes them: a person's evidence link, member and
topics stay, other writers' rows are rewritten and counted, and what a job adds says it is the job's."""

from __future__ import annotations

import pytest

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
    assert log.detail() == {"rewrote": {"import: ": 1}, "kept": {"person: admin edit by system": 1}}
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
