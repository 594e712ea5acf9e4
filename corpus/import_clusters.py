"""The import's merge of a claim's clusters (stances, members, evidence links) as one row.

The base is `Claim.clusters_release_digest`. A claim whose clusters still hold the last release's
content is rewritten in place (cluster rows are kept, so annotation items keep pointing at them);
one the platform changed (a merge, a split, a crowd-verified evidence link, a write-back) is left
as the platform has it, and reported when the release changed it too.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Max

from corpus import bulk
from corpus.import_report import Conflict, ImportReport, who
from corpus.merging import Verdict, digest, three_way
from corpus.models import Claim, ClusterEvidence, ClusterMember, PerspectiveCluster, Status
from corpus.perspectrum import Release
from corpus.provenance import PROVENANCE, Writer, last_change

NEW = ["claim_id", "position", "stance_3", "stance_5", "voter_counts", "status"]  # a new cluster's row
ClusterKey = tuple[str, str, tuple[int, ...], tuple[int, ...], tuple[int, ...], str]
Written = dict[int, list[dict[str, Any]]]  # claim pk → provenance of its cluster rows


def sync_clusters(
    release: Release,
    claims: dict[int, int],
    perspectives: dict[int, int],
    evidence: dict[int, int],
    report: ImportReport,
    writer: Writer,
) -> None:
    desired = {
        claims[claim["cId"]]: [
            (
                c["stance_label_3"],
                c["stance_label_5"],
                tuple(c["voter_counts"]),
                tuple(c["pids"]),
                tuple(c["evidence"]),
                str(Status.KEPT),
            )
            for c in claim["perspectives"]
        ]
        for claim in release.claims
    }
    current, written = current_clusters(list(desired))
    bases = dict(Claim.objects.filter(pk__in=list(desired)).values_list("pk", "clusters_release_digest"))
    cids = {pk: cid for cid, pk in claims.items()}
    to_write, rebased = [], []
    for pk, clusters in desired.items():
        mine = current.get(pk)
        ours = None if mine is None and not bases[pk] and clusters else digest(mine or [])
        theirs = digest(clusters)
        verdict = three_way(bases[pk], ours, theirs)
        report.count("claim clusters", verdict)
        if verdict in (Verdict.CREATE, Verdict.UPDATE):
            to_write.append(pk)
        elif verdict is Verdict.CONFLICT:
            report.conflicts.append(_conflict(f"c{cids[pk]}", clusters, mine or [], written.get(pk, [])))
        if bases[pk] != theirs:
            rebased.append((pk, theirs))
    _write_clusters({pk: desired[pk] for pk in to_write}, perspectives, evidence, writer)
    bulk.update(Claim, ["clusters_release_digest"], rebased)


def _shown(cluster: ClusterKey) -> dict[str, Any]:
    s3, s5, votes, pids, eids, status = cluster
    return {
        "pids": list(pids),
        "stance_label_3": s3,
        "stance_label_5": s5,
        "voter_counts": list(votes),
        "evidence": list(eids),
        "status": status,
    }


def _conflict(
    key: str, release: list[ClusterKey], platform: list[ClusterKey], written: list[dict[str, Any]]
) -> Conflict:
    """The clusters only the release has, and those only the platform has."""
    changed_by, changed_at = who(last_change(written))
    return Conflict(
        "claim clusters",
        key,
        [_shown(c) for c in release if c not in platform],
        [_shown(c) for c in platform if c not in release],
        changed_by,
        changed_at,
    )


def _write_clusters(
    desired: dict[int, list[ClusterKey]],
    perspectives: dict[int, int],
    evidence: dict[int, int],
    writer: Writer,
) -> None:
    """Make the claims' clusters the release's: reuse rows by order, add or remove the difference."""
    if not desired:
        return
    stamp = writer.fields()
    reused = _reuse_clusters(desired)
    # Out of the way first, so that renumbering never meets the unique (claim, position).
    top = PerspectiveCluster.objects.aggregate(top=Max("position"))["top"] or 0
    updated, created = _cluster_rows(desired, reused)
    bulk.update(PerspectiveCluster, ["position"], [(pk, top + 1 + position) for pk, position, *_ in updated])
    bulk.update(PerspectiveCluster, NEW[1:], updated, **stamp)
    bulk.insert(PerspectiveCluster, NEW, created, **stamp)
    _write_contents(desired, perspectives, evidence, stamp)


def _reuse_clusters(desired: dict[int, list[ClusterKey]]) -> dict[int, list[int]]:
    """Per claim, its first clusters (as many as it will have), emptied to be rewritten; the rest go."""
    have: dict[int, list[int]] = {}
    for pk, claim_pk in (
        PerspectiveCluster.objects.filter(claim_id__in=list(desired))
        .order_by("claim_id", "position")
        .values_list("pk", "claim_id")
    ):
        have.setdefault(claim_pk, []).append(pk)
    reused = {claim_pk: pks[: len(desired[claim_pk])] for claim_pk, pks in have.items()}
    surplus = [pk for claim_pk, pks in have.items() for pk in pks[len(desired[claim_pk]) :]]
    kept = [pk for pks in reused.values() for pk in pks]
    ClusterMember.objects.filter(cluster_id__in=kept).delete()
    ClusterEvidence.objects.filter(cluster_id__in=kept).delete()
    PerspectiveCluster.objects.filter(pk__in=surplus).delete()
    return reused


def _cluster_rows(
    desired: dict[int, list[ClusterKey]], reused: dict[int, list[int]]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The release's clusters as rows: reused ones (the pk, then `NEW` but the claim) and new ones
    (in the order of `NEW`)."""
    updated, created = [], []
    for claim_pk, clusters in desired.items():
        pks = reused.get(claim_pk, [])
        for position, (s3, s5, votes, _pids, _eids, status) in enumerate(clusters):
            if position < len(pks):
                updated.append((pks[position], position, s3, s5, list(votes), status))
            else:
                created.append((claim_pk, position, s3, s5, list(votes), status))
    return updated, created


def _write_contents(
    desired: dict[int, list[ClusterKey]],
    perspectives: dict[int, int],
    evidence: dict[int, int],
    stamp: dict[str, Any],
) -> None:
    pk_of = {
        (claim_pk, position): pk
        for pk, claim_pk, position in PerspectiveCluster.objects.filter(
            claim_id__in=list(desired)
        ).values_list("pk", "claim_id", "position")
    }
    members, links = [], []
    for claim_pk, clusters in desired.items():
        for position, (_s3, _s5, _votes, pids, eids, _status) in enumerate(clusters):
            cluster_pk = pk_of[(claim_pk, position)]
            members += [(cluster_pk, perspectives[p], i) for i, p in enumerate(pids)]
            links += [(cluster_pk, evidence[e], i) for i, e in enumerate(eids)]
    bulk.insert(ClusterMember, ["cluster_id", "perspective_id", "position"], members, **stamp)
    bulk.insert(ClusterEvidence, ["cluster_id", "evidence_id", "position"], links, **stamp)


def current_clusters(claim_pks: list[int]) -> tuple[dict[int, list[ClusterKey]], Written]:
    """Each claim's clusters as comparable tuples, and the provenance of every row they are made of
    (clusters, members, links), by claim pk; three queries."""
    rows = PerspectiveCluster.objects.filter(claim_id__in=claim_pks).order_by("claim_id", "position")
    current: dict[int, list[ClusterKey]] = {}
    written: Written = {}
    pids: dict[int, list[int]] = {}
    eids: dict[int, list[int]] = {}
    for model, into, column in (
        (ClusterMember, pids, "perspective__pid"),
        (ClusterEvidence, eids, "evidence__eid"),
    ):
        for row in (
            model._default_manager.filter(cluster__claim_id__in=claim_pks)
            .order_by("cluster_id", "position")
            .values("cluster_id", "cluster__claim_id", column, *PROVENANCE)
        ):
            into.setdefault(row["cluster_id"], []).append(row[column])
            written.setdefault(row["cluster__claim_id"], []).append(row)
    for row in rows.values("pk", "claim_id", "stance_3", "stance_5", "voter_counts", "status", *PROVENANCE):
        current.setdefault(row["claim_id"], []).append(
            (
                row["stance_3"],
                row["stance_5"],
                tuple(row["voter_counts"]),
                tuple(pids.get(row["pk"], [])),
                tuple(eids.get(row["pk"], [])),
                row["status"],
            )
        )
        written.setdefault(row["claim_id"], []).append(row)
    return current, written
