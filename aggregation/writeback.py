"""Writing a job's decided items back to the corpus, one function per kind of relation.

Called inside ``services.aggregate_job``'s transaction. Each function makes the corpus agree with
the decisions it is given and is a no-op the second time, so re-aggregating changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.db.models import Max
from django.utils import timezone

from corpus.models import (
    ClaimTopic,
    ClusterEvidence,
    ClusterMember,
    PerspectiveCluster,
    Status,
    Topic,
)


@dataclass(frozen=True)
class Decision:
    """One item's outcome, with the corpus rows it is about."""

    item_id: int
    label: str
    fine_label: str
    counts: list[int]
    agreement: float | None
    kept: bool
    cluster_id: int | None = None
    perspective_id: int | None = None
    evidence_id: int | None = None


def original_first(decisions: Iterable[Decision]) -> list[Decision]:
    """One decision per cluster: that of its lowest-placed member (the original when it was judged).

    A stance job with ``members=all`` judges every member of a cluster, but the cluster has one
    stance; the release's stance is the original's.
    """
    chosen = [d for d in decisions if d.cluster_id is not None]
    places: dict[tuple[int, int | None], int] = {
        (cluster, perspective): position
        for cluster, perspective, position in ClusterMember.objects.filter(
            cluster_id__in={d.cluster_id for d in chosen}
        ).values_list("cluster_id", "perspective_id", "position")
    }
    best: dict[int, tuple[int, Decision]] = {}
    for decision in chosen:
        assert decision.cluster_id is not None
        place = places.get((decision.cluster_id, decision.perspective_id), 1 << 30)
        if decision.cluster_id not in best or place < best[decision.cluster_id][0]:
            best[decision.cluster_id] = (place, decision)
    return [decision for _, decision in best.values()]


def write_decisions(task_type: str, decisions: Sequence[Decision], rule: str) -> int:
    """Decisions of a job of this task type, written by that relation's function (none for others)."""
    if task_type == "stance":
        return write_stances(decisions, rule)
    if task_type == "evidence_verification":
        return write_evidence(decisions)
    if task_type == "paraphrase_verification":
        return write_paraphrases(decisions)
    return 0


def write_stances(decisions: Sequence[Decision], rule: str) -> int:
    """Stance labels, voter counts, ρ, status and rule onto each decided cluster.

    One UPDATE per distinct outcome (with three raters there are a few dozen) rather than a
    ``bulk_update``, whose per-row CASE expressions took seconds for a thousand clusters.
    """
    groups: dict[tuple[str, str, tuple[int, ...], float | None, bool], list[int]] = {}
    for d in original_first(decisions):
        assert d.cluster_id is not None
        key = (d.label, d.fine_label, tuple(d.counts), d.agreement, d.kept)
        groups.setdefault(key, []).append(d.cluster_id)
    now = timezone.now()
    for (label, fine_label, counts, agreement, kept), clusters in groups.items():
        PerspectiveCluster.objects.filter(pk__in=clusters).update(
            stance_3=label,
            stance_5=fine_label,
            voter_counts=list(counts),
            agreement=agreement,
            status=Status.KEPT if kept else Status.REJECTED,
            rule=rule[:200],
            updated=now,
        )
    return sum(len(clusters) for clusters in groups.values())


def write_evidence(decisions: Sequence[Decision]) -> int:
    """A kept (evidence, perspective) pair links the evidence to every cluster the perspective is in;
    a rejected one removes that link."""
    perspectives = {d.perspective_id for d in decisions}
    clusters_of: dict[int, list[int]] = {}
    for cluster_id, perspective_id in ClusterMember.objects.filter(
        perspective_id__in=perspectives
    ).values_list("cluster_id", "perspective_id"):
        clusters_of.setdefault(perspective_id, []).append(cluster_id)
    wanted = {
        (cluster, d.evidence_id): d.kept
        for d in decisions
        if d.perspective_id is not None and d.evidence_id is not None
        for cluster in clusters_of.get(d.perspective_id, [])
    }
    cluster_ids = {cluster for cluster, _ in wanted}
    links = ClusterEvidence.objects.filter(cluster_id__in=cluster_ids)
    present = set(links.values_list("cluster_id", "evidence_id"))
    last = _last_positions(links.values("cluster_id").annotate(last=Max("position")))
    added = []
    for (cluster, evidence), kept in sorted(wanted.items()):
        if kept and (cluster, evidence) not in present:
            last[cluster] = last.get(cluster, -1) + 1
            added.append(ClusterEvidence(cluster_id=cluster, evidence_id=evidence, position=last[cluster]))
    ClusterEvidence.objects.bulk_create(added, batch_size=1000)
    dropped = [pair for pair, kept in wanted.items() if not kept and pair in present]
    for cluster, evidence in dropped:
        ClusterEvidence.objects.filter(cluster_id=cluster, evidence_id=evidence).delete()
    return len(added) + len(dropped)


def write_paraphrases(decisions: Sequence[Decision]) -> int:
    """An accepted paraphrase joins its original's cluster (after the members it has); a refused one
    leaves it, unless it is the cluster's original."""
    pairs = {(d.cluster_id, d.perspective_id): d.kept for d in decisions if d.cluster_id and d.perspective_id}
    members = ClusterMember.objects.filter(cluster_id__in={cluster for cluster, _ in pairs})
    present = dict(((m.cluster_id, m.perspective_id), m.position) for m in members)
    last = _last_positions(members.values("cluster_id").annotate(last=Max("position")))
    added, dropped = [], []
    for (cluster, perspective), kept in sorted(pairs.items()):
        position = present.get((cluster, perspective))
        if kept and position is None:
            last[cluster] = last.get(cluster, -1) + 1
            added.append(
                ClusterMember(cluster_id=cluster, perspective_id=perspective, position=last[cluster])
            )
        elif not kept and position:
            dropped.append((cluster, perspective))
    ClusterMember.objects.bulk_create(added, batch_size=1000)
    for cluster, perspective in dropped:
        ClusterMember.objects.filter(cluster_id=cluster, perspective_id=perspective).delete()
    return len(added) + len(dropped)


def write_topics(topics: Mapping[int, Sequence[str]]) -> int:
    """Each claim's topics, replaced by the kept ones in their order."""
    slugs = {slug for chosen in topics.values() for slug in chosen}
    known = dict(Topic.objects.filter(slug__in=slugs).values_list("slug", "pk"))
    for slug in sorted(slugs - set(known)):
        known[slug] = Topic.objects.create(slug=slug, name=slug.replace("_", " ").capitalize()).pk
    ClaimTopic.objects.filter(claim_id__in=list(topics)).delete()
    ClaimTopic.objects.bulk_create(
        [
            ClaimTopic(claim_id=claim, topic_id=known[slug], position=position)
            for claim, chosen in topics.items()
            for position, slug in enumerate(chosen)
        ],
        batch_size=1000,
    )
    return len(topics)


def _last_positions(rows: Iterable[Mapping[str, int]]) -> dict[int, int]:
    return {row["cluster_id"]: row["last"] for row in rows}
