"""Paraphrase verification (PERSPECTRUM step 2b): is the candidate the same argument, given the claim?

Candidates are paraphrase perspectives (`origin=paraphrase`, `paraphrase_of` set). Their writer is
excluded from the item, which the database enforces (see `annotation.models.WorkerItem`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db.models import Max

from annotation.models import Authorship
from annotation.task_types import base
from annotation.task_types.builtin_rules import PARAPHRASE_RULE
from annotation.task_types.decisions import Decision
from corpus import provenance, removals
from corpus.models import ClusterMember, Origin, Perspective, PerspectiveCluster

SAME, DIFFERENT = "same", "different"
LABELS = ((SAME, "Same argument"), (DIFFERENT, "Different argument"))
CLAIM = "School uniforms should be compulsory."
ORIGINAL = "School uniforms reduce bullying."
QUIZ = (
    base.QuizQuestion(
        key="q1",
        context=(
            ("Claim", CLAIM),
            ("Perspective", ORIGINAL),
            ("Candidate", "Uniforms mean fewer pupils get picked on."),
        ),
        question="Does the candidate make the same argument as the perspective?",
        choices=LABELS,
        answer=SAME,
    ),
    base.QuizQuestion(
        key="q2",
        context=(
            ("Claim", CLAIM),
            ("Perspective", ORIGINAL),
            ("Candidate", "Uniforms cost families too much."),
        ),
        question="Does the candidate make the same argument as the perspective?",
        choices=LABELS,
        answer=DIFFERENT,
    ),
    base.QuizQuestion(
        key="q3",
        context=(("Claim", CLAIM), ("Perspective", ORIGINAL), ("Candidate", "Uniforms increase bullying.")),
        question="Does the candidate make the same argument as the perspective?",
        choices=LABELS,
        answer=DIFFERENT,
        explanation="It takes the opposite side: not the same argument.",
    ),
)


class ParaphraseVerificationTaskType(base.TaskType):
    slug = "paraphrase_verification"
    name = "Paraphrase verification"
    summary = "Same or different argument, in the context of the claim."
    labels = LABELS
    machine_texts = ("perspective", "candidate")
    defaults = base.Defaults(groups_per_hit=24, workers_per_item=3, reward=Decimal("1.00"))
    quiz = QUIZ
    aggregation = PARAPHRASE_RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[base.ItemSpec]:
        clusters = {cluster.pk: cluster for cluster in base.select_clusters(filters)}
        originals = ClusterMember.objects.filter(cluster__in=list(clusters), position=0)
        original_cluster = {member.perspective_id: member.cluster_id for member in originals}
        candidates = (
            Perspective.objects.filter(origin=Origin.PARAPHRASE, paraphrase_of__in=list(original_cluster))
            .select_related("paraphrase_of")
            .order_by("pid")
        )
        authorships = Authorship.objects.filter(perspective__in=candidates).select_related("worker")
        authors = {a.perspective_id: a.worker_id for a in authorships}
        # A paraphrase written by a modelled (simulated) writer has a known answer for simulated
        # verifiers: a diligent writer's rewrite is the same argument. People's have none.
        written = {a.perspective_id: SAME for a in authorships if a.worker.simulated and a.worker.model}
        members = set(
            ClusterMember.objects.filter(cluster__in=list(clusters)).values_list(
                "cluster_id", "perspective_id"
            )
        )
        # The release may keep a paraphrase in another cluster of the same claim (its link points to
        # the head of the first cluster, by cId, that holds it): there its answer is "different".
        placed = {(clusters[cluster].claim_id, perspective) for cluster, perspective in members}
        for candidate in candidates:
            assert candidate.paraphrase_of is not None
            cluster = clusters[original_cluster[candidate.paraphrase_of.pk]]
            known = _known(cluster, candidate.pk, members, placed, written, authors)
            yield _paraphrase_item(cluster, candidate, known, authors.get(candidate.pk))

    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        return write_paraphrases(decisions)


def _paraphrase_item(
    cluster: PerspectiveCluster, candidate: Perspective, known: str | None, author: int | None
) -> base.ItemSpec:
    """The item asking whether `candidate` says what its original (the head of `cluster`) says; never
    shown to its own `author`."""
    assert candidate.paraphrase_of is not None
    key = f"c{cluster.claim.cid}-p{candidate.paraphrase_of.pid}-q{candidate.pid}"
    return base.ItemSpec(
        key=key,
        group=key,
        payload={
            "claim": cluster.claim.text,
            "perspective": candidate.paraphrase_of.text,
            "candidate": candidate.text,
            "pid": candidate.pid,
        },
        known_answer=known,
        claim_id=cluster.claim_id,
        perspective_id=candidate.pk,
        cluster_id=cluster.pk,
        excluded_workers=(author,) if author is not None else (),
    )


def _known(
    cluster: PerspectiveCluster,
    candidate: int,
    members: set[tuple[int, int]],
    placed: set[tuple[int, int]],
    written: Mapping[int, str],
    authors: Mapping[int, int],
) -> str | None:
    """The release's answer: same when it clusters the two here, different when it keeps them apart in
    this claim, same when only another claim's cluster holds them (the link comes from there); else
    a simulated writer's (same), or none for a person's paraphrase."""
    if (cluster.pk, candidate) in members:
        return SAME
    if (cluster.claim_id, candidate) in placed:
        return DIFFERENT
    if candidate not in authors:
        return SAME
    return written.get(candidate)


def write_paraphrases(decisions: Sequence[Decision]) -> int:
    """An accepted paraphrase joins its original's cluster (after the members it has), unless a person
    took it out; a refused one leaves it, unless it is the cluster's original or a person put it there."""
    pairs = {(d.cluster_id, d.perspective_id): d.kept for d in decisions if d.cluster_id and d.perspective_id}
    members = ClusterMember.objects.filter(cluster_id__in={cluster for cluster, _ in pairs})
    present = dict(((m.cluster_id, m.perspective_id), m.position) for m in members)
    last = base.last_positions(members.values("cluster_id").annotate(last=Max("position")))
    stamp = provenance.stamp()
    added, unwanted = [], set()
    withheld = removals.withheld(
        ClusterMember, {pair for pair, kept in pairs.items() if kept and pair not in present}
    )
    for (cluster, perspective), kept in sorted(pairs.items()):
        position = present.get((cluster, perspective))
        if kept and position is None and (cluster, perspective) not in withheld:
            last[cluster] = last.get(cluster, -1) + 1
            added.append(
                ClusterMember(cluster_id=cluster, perspective_id=perspective, position=last[cluster], **stamp)
            )
        elif not kept and position:
            unwanted.add((cluster, perspective))
    ClusterMember.objects.bulk_create(added, batch_size=1000)
    leaving = [m.pk for m in members if (m.cluster_id, m.perspective_id) in unwanted]
    dropped = provenance.guard(ClusterMember.objects.filter(pk__in=leaving))
    changed = set(ClusterMember.objects.filter(pk__in=dropped).values_list("cluster_id", flat=True))
    removals.delete(ClusterMember.objects.filter(pk__in=dropped))
    provenance.touch(PerspectiveCluster.objects.filter(pk__in=changed | {m.cluster_id for m in added}))
    return len(added) + len(dropped)
