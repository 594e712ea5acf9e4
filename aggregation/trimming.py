"""Expert trimming (PERSPECTRUM step 2d): merge and split a claim's clusters, and copy clusters to a
similar claim, flipping the stance when the two claims oppose each other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Max, QuerySet
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from annotation.task_types.builtin_rules import STANCE_FLIP
from corpus import provenance, removals
from corpus.models import Claim, ClusterEvidence, ClusterMember, PerspectiveCluster, Status
from corpus.provenance import Writer


class TrimmingError(ValueError):
    """A merge, split or copy that makes no sense (clusters of other claims, the original split off …)."""


def merge_clusters(cluster_ids: Sequence[int], *, user: Any = None) -> PerspectiveCluster:
    """Fold clusters of one claim into the first of them (by position): members and evidence move over."""
    with transaction.atomic(), provenance.writing(Writer.person(user, "merge")) as log:
        clusters = list(PerspectiveCluster.objects.select_for_update().filter(pk__in=cluster_ids))
        if len(clusters) < 2 or len({c.claim_id for c in clusters}) != 1:
            raise TrimmingError("merge two or more clusters of the same claim")
        clusters.sort(key=lambda c: c.position)
        target, others = clusters[0], clusters[1:]
        members = list(
            ClusterMember.objects.filter(cluster__in=others).order_by("cluster__position", "position")
        )
        links = list(
            ClusterEvidence.objects.filter(cluster__in=others).order_by("cluster__position", "position")
        )
        perspectives = [m.perspective_id for m in members]
        evidence = [link.evidence_id for link in links]
        log.guard(PerspectiveCluster.objects.filter(pk__in=[c.pk for c in clusters]))
        PerspectiveCluster.objects.filter(pk__in=[c.pk for c in others]).delete()
        _append_members(target, perspectives)
        _append_evidence(target, evidence)
        rule = f"merged with {len(others)} cluster(s) by {user}"[:200]
        PerspectiveCluster.objects.filter(pk=target.pk).update(
            rule=rule, updated=timezone.now(), **log.stamp()
        )
        target.refresh_from_db()
        audit.record(
            user,
            AuditEvent.Action.MERGED,
            f"claim {target.claim_id} cluster {target.pk}",
            clusters=list(cluster_ids),
            replaced=log.detail()["rewrote"],
        )
    return target


def split_cluster(cluster_id: int, perspective_ids: Sequence[int], *, user: Any = None) -> PerspectiveCluster:
    """Move some members (never the original) into a new cluster of the same claim with the same stance."""
    with transaction.atomic(), provenance.writing(Writer.person(user, "split")) as log:
        cluster = PerspectiveCluster.objects.select_for_update().get(pk=cluster_id)
        moving = list(cluster.members.filter(perspective_id__in=perspective_ids).order_by("position"))
        if not moving or len(moving) != len(set(perspective_ids)):
            raise TrimmingError("choose members of the cluster to split off")
        if any(member.position == 0 for member in moving):
            raise TrimmingError("the original perspective stays in its cluster; split off the others")
        log.guard(PerspectiveCluster.objects.filter(pk=cluster.pk))
        # Out of this cluster by a person's hand: no paraphrase job puts them back.
        removals.delete(ClusterMember.objects.filter(pk__in=[m.pk for m in moving]))
        # The evidence stays with the cluster as the person left it, even where only a member that
        # left was found to support it: a job's re-run keeps it.
        staying = ClusterEvidence.objects.filter(pk__in=log.guard(cluster.evidence_links.all()))
        staying.update(**log.stamp())
        PerspectiveCluster.objects.filter(pk=cluster.pk).update(updated=timezone.now(), **log.stamp())
        new = _new_cluster(
            cluster.claim, cluster, flip=False, rule=f"split from cluster {cluster.position} by {user}"
        )
        _append_members(new, [m.perspective_id for m in moving])
        audit.record(
            user,
            AuditEvent.Action.SPLIT,
            f"claim {cluster.claim_id} cluster {cluster.pk}",
            new_cluster=new.pk,
            replaced=log.detail()["rewrote"],
        )
    return new


def copy_clusters(
    cluster_ids: Sequence[int], to_claim_id: int, *, oppose: bool, user: Any = None
) -> list[PerspectiveCluster]:
    """Copy clusters (members and evidence) to another claim; with ``oppose`` the stance is flipped.

    A cluster whose original perspective already opens one of the target's clusters is not copied again.
    """
    with transaction.atomic(), provenance.writing(Writer.person(user, "copy")):
        target = Claim.objects.select_for_update().get(pk=to_claim_id)
        sources = list(PerspectiveCluster.objects.filter(pk__in=cluster_ids).select_related("claim"))
        if any(source.claim_id == target.pk for source in sources):
            raise TrimmingError("copy clusters to a different claim")
        present = set(
            ClusterMember.objects.filter(cluster__claim=target, position=0).values_list(
                "perspective_id", flat=True
            )
        )
        copied = []
        for source in sorted(sources, key=lambda c: (c.claim.cid, c.position)):
            members = list(source.members.order_by("position").values_list("perspective_id", flat=True))
            if not members or members[0] in present:
                continue
            flipped = " (stance flipped)" if oppose else ""
            rule = f"copied from c{source.claim.cid} cluster {source.position} by {user}{flipped}"
            new = _new_cluster(target, source, flip=oppose, rule=rule)
            _append_members(new, members)
            _append_evidence(
                new, list(source.evidence_links.order_by("position").values_list("evidence_id", flat=True))
            )
            present.add(members[0])
            copied.append(new)
        if copied:
            audit.record(
                user,
                AuditEvent.Action.COPIED,
                f"claim {target.cid}",
                clusters=[c.pk for c in copied],
                oppose=oppose,
            )
    return copied


def flip_votes(votes: Sequence[int]) -> list[int]:
    """[S, MS, MU, U, NV] of the opposite claim: the sides swap, the intensities and NOT_VALID stay."""
    if len(votes) != 5:
        return list(votes)
    support, mild_support, mild_undermine, undermine, not_valid = votes
    return [undermine, mild_undermine, mild_support, support, not_valid]


def _new_cluster(claim: Claim, like: PerspectiveCluster, *, flip: bool, rule: str) -> PerspectiveCluster:
    last = claim.clusters.aggregate(last=Max("position"))["last"]
    swap = STANCE_FLIP if flip else {}
    return PerspectiveCluster.objects.create(
        claim=claim,
        position=0 if last is None else last + 1,
        stance_3=swap.get(like.stance_3, like.stance_3),
        stance_5=swap.get(like.stance_5, like.stance_5),
        voter_counts=flip_votes(like.voter_counts) if flip else list(like.voter_counts),
        agreement=like.agreement,
        # An expert put it there: released like the original, or adjudicated when that was a candidate.
        status=like.status if like.status in Status.released() else Status.ADJUDICATED,
        rule=rule[:200],
        **provenance.stamp(),
    )


def _append_members(cluster: PerspectiveCluster, perspective_ids: Sequence[int]) -> None:
    rows = _appended(cluster.members.all(), "perspective_id", perspective_ids)
    removals.lift(ClusterMember, {(cluster.pk, pk) for pk, _ in rows})
    stamp = provenance.stamp()
    ClusterMember.objects.bulk_create(
        ClusterMember(cluster=cluster, perspective_id=pk, position=at, **stamp) for pk, at in rows
    )


def _append_evidence(cluster: PerspectiveCluster, evidence_ids: Sequence[int]) -> None:
    rows = _appended(cluster.evidence_links.all(), "evidence_id", evidence_ids)
    removals.lift(ClusterEvidence, {(cluster.pk, pk) for pk, _ in rows})
    stamp = provenance.stamp()
    ClusterEvidence.objects.bulk_create(
        ClusterEvidence(cluster=cluster, evidence_id=pk, position=at, **stamp) for pk, at in rows
    )


def _appended(present: QuerySet[Any], field: str, ids: Sequence[int]) -> list[tuple[int, int]]:
    """(id, position) for each id not yet in ``present``, placed after its last row, in order."""
    seen = set(present.values_list(field, flat=True))
    last = present.aggregate(last=Max("position"))["last"]
    position = -1 if last is None else last
    rows = []
    for pk in ids:
        if pk not in seen:
            position += 1
            rows.append((pk, position))
            seen.add(pk)
    return rows


def similar_claims(claim: Claim, k: int = 5) -> list[tuple[Claim, float]]:
    """The k claims most similar to `claim` by retrieval, for the expert's side-by-side view (step 2d)."""
    from search.base import Kind
    from search.services import get_backend

    hits = [hit for hit in get_backend().search(Kind.CLAIM, claim.text, k + 1) if hit.id != claim.cid][:k]
    found = Claim.objects.in_bulk([hit.id for hit in hits], field_name="cid")
    return [(found[hit.id], hit.score) for hit in hits if hit.id in found]


def similar_claim_pairs(count: int = 350) -> list[tuple[Claim, Claim, float]]:
    """The `count` most similar claim pairs (the paper's top 350), best first."""
    from search.services import similar_claim_pair_candidates

    pairs = similar_claim_pair_candidates(count)
    claims = Claim.objects.in_bulk(
        {cid for p in pairs for cid in (p.first_id, p.second_id)}, field_name="cid"
    )
    return [
        (claims[p.first_id], claims[p.second_id], p.score)
        for p in pairs
        if {p.first_id, p.second_id} <= claims.keys()
    ]
