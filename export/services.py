"""Export services: write the corpus as PERSPECTRUM release files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus.models import (
    Claim,
    ClaimTopic,
    ClusterEvidence,
    ClusterMember,
    Evidence,
    Perspective,
    PerspectiveCluster,
    Status,
)
from export.perspectrum import CLAIMS, EVIDENCE, POOL, SPLIT, TOPIC, dumps, file_names


def perspectrum_records(released: tuple[str, ...] = tuple(Status.released())) -> dict[str, Any]:
    """The five PERSPECTRUM files' content, from the database, each list ordered by id.

    Only clusters whose status is in `released` are written; a constant number of queries.
    """
    topics: dict[int, list[str]] = {}
    for cid, slug in ClaimTopic.objects.order_by("claim__cid", "position").values_list(
        "claim__cid", "topic__slug"
    ):
        topics.setdefault(cid, []).append(slug)
    clusters = _clusters_by_claim(released)
    claims = [
        {
            "cId": cid,
            "text": text,
            "source": source,
            "perspectives": clusters.get(pk, []),
            "topics": topics.get(cid, []),
        }
        for pk, cid, text, source in Claim.objects.filter(text_missing=False)
        .order_by("cid")
        .values_list("pk", "cid", "text", "source")
    ]
    return {
        CLAIMS: claims,
        POOL: [
            {"pId": pid, "text": text, "source": source}
            for pid, text, source in Perspective.objects.order_by("pid").values_list("pid", "text", "source")
        ],
        EVIDENCE: [
            {"eId": eid, "text": text, "source": source}
            for eid, text, source in Evidence.objects.filter(text_missing=False)
            .order_by("eid")
            .values_list("eid", "text", "source")
        ],
        SPLIT: {
            str(cid): split
            for cid, split in Claim.objects.exclude(split="").order_by("cid").values_list("cid", "split")
        },
        TOPIC: [
            {"claim_id": cid, "topics": topics.get(cid, [])}
            for cid in Claim.objects.order_by("cid").values_list("cid", flat=True)
        ],
    }


def _clusters_by_claim(released: tuple[str, ...]) -> dict[int, list[dict[str, Any]]]:
    chosen = PerspectiveCluster.objects.filter(status__in=released)
    pids: dict[int, list[int]] = {}
    for cluster_pk, pid in (
        ClusterMember.objects.filter(cluster__in=chosen)
        .order_by("cluster_id", "position")
        .values_list("cluster_id", "perspective__pid")
    ):
        pids.setdefault(cluster_pk, []).append(pid)
    eids: dict[int, list[int]] = {}
    for cluster_pk, eid in (
        ClusterEvidence.objects.filter(cluster__in=chosen)
        .order_by("cluster_id", "position")
        .values_list("cluster_id", "evidence__eid")
    ):
        eids.setdefault(cluster_pk, []).append(eid)
    by_claim: dict[int, list[dict[str, Any]]] = {}
    for pk, claim_pk, s3, s5, votes in chosen.order_by("claim_id", "position").values_list(
        "pk", "claim_id", "stance_3", "stance_5", "voter_counts"
    ):
        by_claim.setdefault(claim_pk, []).append(
            {
                "pids": pids.get(pk, []),
                "stance_label_3": s3,
                "stance_label_5": s5,
                "voter_counts": votes,
                "evidence": eids.get(pk, []),
            }
        )
    return by_claim


def export_perspectrum(version: str, out_dir: Path | str) -> dict[str, Path]:
    """Write the five PERSPECTRUM files for `version` into `out_dir`; returns kind → path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = perspectrum_records()
    written = {}
    for kind, name in file_names(version).items():
        path = out / name
        path.write_bytes(dumps(records[kind]))
        written[kind] = path
    return written
