"""Ingest a parsed debate into the corpus, in one transaction, with its provenance.

Motion → Claim; each point's headline → a crawled Perspective in a one-member candidate cluster
with the site's side; the cleaned body → Evidence linked to that cluster. An unchanged debate
changes nothing; a changed one keeps its old points (no longer current) and adds the new ones.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Max

from corpus import provenance
from corpus.models import (
    Claim,
    ClusterEvidence,
    ClusterMember,
    Evidence,
    Origin,
    Perspective,
    PerspectiveCluster,
    Status,
)
from corpus.provenance import Writer
from corpus.services import allocate_ids
from crawler.models import Debate, PageVersion, Point
from crawler.parsing import DebateRecord, PointRecord


@dataclass(frozen=True)
class PreparedPoint:
    """A point with what cleaning decided: its evidence text and any quality flag on its headline."""

    point: PointRecord
    evidence: str
    quality_flag: str = ""


@dataclass
class IngestResult:
    debate_id: int
    outcome: str  # created | updated | unchanged
    new_points: int = 0
    retired_points: int = 0
    claim_id: int | None = None
    notes: list[str] = field(default_factory=list)


def fingerprint(record: DebateRecord) -> str:
    """sha256 of what the debate says: two crawls of an unchanged debate give the same value."""
    content = {
        "motion": record.motion,
        "intro": record.intro,
        "theme": record.theme,
        "points": [
            [p.side, p.site_point_id, p.headline, p.body, p.counterpoint, p.references] for p in record.points
        ],
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def is_unchanged(record: DebateRecord) -> bool:
    """True when this exact debate is already ingested (same URL, same content)."""
    return Debate.objects.filter(url=record.url, fingerprint=fingerprint(record)).exists()


def ingest_debate(
    record: DebateRecord, points: list[PreparedPoint], version_id: int, run_id: int | None
) -> IngestResult:
    """Write one debate and its points into the corpus; all or nothing."""
    digest = fingerprint(record)
    version = PageVersion.objects.get(pk=version_id)
    with transaction.atomic(), provenance.writing(Writer.crawl(run_id)):
        debate = Debate.objects.select_for_update().filter(url=record.url).first()
        if debate is not None and debate.fingerprint == digest:
            Debate.objects.filter(pk=debate.pk).update(last_run_id=run_id)
            return IngestResult(debate.pk, "unchanged", claim_id=debate.claim_id)
        if debate is None:
            claim = _create_claim(record)
            debate = Debate(url=record.url, site=record.site, claim=claim, first_run_id=run_id)
            outcome = "created"
        else:
            outcome = "updated"
        _copy_fields(debate, record, version, digest, run_id)
        debate.save()
        new, retired = _sync_points(debate, points, version)
    return IngestResult(debate.pk, outcome, new_points=new, retired_points=retired, claim_id=debate.claim_id)


def _create_claim(record: DebateRecord) -> Claim:
    (cid,) = allocate_ids(Claim, 1)
    return Claim.objects.create(
        cid=cid,
        text=record.motion,
        source=record.site,
        source_url=record.url,
        original_title=record.motion,
        **provenance.stamp(),
    )


def _copy_fields(
    debate: Debate, record: DebateRecord, version: PageVersion, digest: str, run_id: int | None
) -> None:
    debate.page_id = version.page_id
    debate.version = version
    debate.fingerprint = digest
    debate.site_debate_id = record.site_debate_id
    debate.layout = record.layout
    debate.motion = record.motion
    debate.intro = record.intro
    debate.theme = record.theme
    debate.published = record.published
    debate.modified = record.modified
    debate.bibliography = record.bibliography
    debate.last_run_id = run_id


def _point_key(point: PointRecord | Point) -> tuple[str, str]:
    return (point.side, point.site_point_id or point.headline)


def _same_point(old: Point, new: PointRecord) -> bool:
    return (old.headline, old.body, old.counterpoint) == (new.headline, new.body, new.counterpoint)


def _sync_points(debate: Debate, prepared: list[PreparedPoint], version: PageVersion) -> tuple[int, int]:
    """Keep unchanged points, retire changed or vanished ones, add new ones; returns (new, retired)."""
    current = {_point_key(p): p for p in debate.points.filter(current=True)}
    keep: set[int] = set()
    to_add: list[tuple[int, PreparedPoint]] = []
    for position, item in enumerate(prepared):
        old = current.get(_point_key(item.point))
        if old is not None and _same_point(old, item.point):
            keep.add(old.pk)
            if old.position != position:
                Point.objects.filter(pk=old.pk).update(position=position)
        else:
            to_add.append((position, item))
    retired = debate.points.filter(current=True).exclude(pk__in=keep).update(current=False)
    if to_add:
        _add_points(debate, to_add, version)
    return len(to_add), retired


def _add_points(debate: Debate, items: list[tuple[int, PreparedPoint]], version: PageVersion) -> None:
    """Each new point becomes a crawled perspective in a candidate cluster of its own, with its evidence."""
    claim = debate.claim
    assert claim is not None, "a crawled debate always has its claim"
    pids = allocate_ids(Perspective, len(items))
    eids = allocate_ids(Evidence, sum(1 for _, item in items if item.evidence))
    first_position = (claim.clusters.aggregate(top=Max("position"))["top"] or -1) + 1
    stamp = provenance.stamp()
    for offset, ((position, item), pid) in enumerate(zip(items, pids, strict=True)):
        perspective, cluster = _candidate_cluster(debate, claim, item, pid, first_position + offset, stamp)
        evidence = (
            _cited_evidence(debate, cluster, item.evidence, eids.pop(0), stamp) if item.evidence else None
        )
        _record_point(debate, version, position, item.point, cluster, perspective, evidence)


def _candidate_cluster(
    debate: Debate, claim: Claim, item: PreparedPoint, pid: int, position: int, stamp: dict[str, Any]
) -> tuple[Perspective, PerspectiveCluster]:
    """The point's headline as a crawled perspective, alone in a candidate cluster with the site's side."""
    perspective = Perspective.objects.create(
        pid=pid,
        text=item.point.headline,
        origin=Origin.CRAWLED,
        source=debate.site,
        source_url=debate.url,
        quality_flag=item.quality_flag[:200],
        **stamp,
    )
    cluster = PerspectiveCluster.objects.create(
        claim=claim, position=position, status=Status.CANDIDATE, source_side=item.point.side, **stamp
    )
    ClusterMember.objects.create(cluster=cluster, perspective=perspective, position=0, **stamp)
    return perspective, cluster


def _cited_evidence(
    debate: Debate, cluster: PerspectiveCluster, text: str, eid: int, stamp: dict[str, Any]
) -> Evidence:
    """The point's cleaned body as evidence, linked to its cluster."""
    evidence = Evidence.objects.create(eid=eid, text=text, source=debate.site, source_url=debate.url, **stamp)
    ClusterEvidence.objects.create(cluster=cluster, evidence=evidence, position=0, **stamp)
    return evidence


def _record_point(
    debate: Debate,
    version: PageVersion,
    position: int,
    point: PointRecord,
    cluster: PerspectiveCluster,
    perspective: Perspective,
    evidence: Evidence | None,
) -> None:
    """The crawl's own record of the point, linked to the corpus rows made from it."""
    Point.objects.create(
        debate=debate,
        version=version,
        side=point.side,
        position=position,
        site_point_id=point.site_point_id,
        headline=point.headline,
        body=point.body,
        counterpoint=point.counterpoint,
        references=point.references,
        cluster=cluster,
        perspective=perspective,
        evidence=evidence,
    )
