"""Evidence verification (PERSPECTRUM step 3): does the paragraph support each candidate perspective?

Candidates per paragraph come from retrieval, passed in as the `candidates` filter
({eId: [pId, ...]}); without it, the perspectives of the claims the paragraph is linked to.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db.models import Max

from annotation.task_types.base import (
    Defaults,
    ItemSpec,
    QuizQuestion,
    TaskType,
    last_positions,
    select_clusters,
)
from annotation.task_types.builtin_rules import EVIDENCE_RULE
from annotation.task_types.decisions import Decision
from corpus import provenance
from corpus.models import ClusterEvidence, ClusterMember, Evidence, Perspective, PerspectiveCluster

SUPPORTED, NOT_SUPPORTED = "supported", "not_supported"
LABELS = ((SUPPORTED, "Supported"), (NOT_SUPPORTED, "Not supported"))
PARAGRAPH = (
    "A four-year study of 2,000 pupils found that schools which introduced uniforms saw reports of "
    "bullying fall by a third, as visible differences in wealth between pupils disappeared."
)
QUIZ = (
    QuizQuestion(
        key="q1",
        context=(("Paragraph", PARAGRAPH), ("Perspective", "School uniforms reduce bullying.")),
        question="Does the paragraph support the perspective?",
        choices=LABELS,
        answer=SUPPORTED,
    ),
    QuizQuestion(
        key="q2",
        context=(("Paragraph", PARAGRAPH), ("Perspective", "Uniforms stifle pupils' creativity.")),
        question="Does the paragraph support the perspective?",
        choices=LABELS,
        answer=NOT_SUPPORTED,
    ),
)


class EvidenceVerificationTaskType(TaskType):
    slug = "evidence_verification"
    name = "Evidence verification"
    summary = "Does the paragraph support each candidate perspective?"
    labels = LABELS
    defaults = Defaults(
        groups_per_hit=20, workers_per_item=4, reward=Decimal("1.00"), extra={"candidates": 8}
    )
    quiz = QUIZ
    aggregation = EVIDENCE_RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        clusters = list(select_clusters(filters))
        links = ClusterEvidence.objects.filter(cluster__in=clusters).select_related(
            "evidence", "cluster__claim"
        )
        originals = dict(
            ClusterMember.objects.filter(cluster__in=clusters, position=0).values_list(
                "cluster_id", "perspective_id"
            )
        )
        supported = {(link.evidence_id, originals.get(link.cluster_id)) for link in links}
        by_evidence: dict[int, Evidence] = {}
        claim_perspectives: dict[int, list[int]] = {}
        for link in links:
            if not link.evidence.text_missing:
                by_evidence[link.evidence_id] = link.evidence
        for cluster in clusters:
            if cluster.pk in originals:
                claim_perspectives.setdefault(cluster.claim_id, []).append(originals[cluster.pk])
        evidence_claims: dict[int, set[int]] = {}
        for link in links:
            evidence_claims.setdefault(link.evidence_id, set()).add(link.cluster.claim_id)
        explicit: Mapping[str, list[int]] = filters.get("candidates") or {}
        limit = int(params["candidates"])
        rng = random.Random(int(params.get("seed", 0)))
        for evidence in sorted(by_evidence.values(), key=lambda e: e.eid):
            if str(evidence.eid) in explicit:
                pks = list(
                    Perspective.objects.filter(pid__in=explicit[str(evidence.eid)]).values_list(
                        "pk", flat=True
                    )
                )
            else:
                pks = sorted(
                    {pk for cid in evidence_claims[evidence.pk] for pk in claim_perspectives.get(cid, [])}
                )
                # Shuffled with the job's seed so a supported candidate's place gives nothing away.
                rng.shuffle(pks)
            for perspective in Perspective.objects.filter(pk__in=pks[:limit]).order_by("pid"):
                yield ItemSpec(
                    key=f"e{evidence.eid}-p{perspective.pid}",
                    group=f"e{evidence.eid}",
                    payload={
                        "eid": evidence.eid,
                        "evidence": evidence.text,
                        "pid": perspective.pid,
                        "perspective": perspective.text,
                    },
                    known_answer=SUPPORTED if (evidence.pk, perspective.pk) in supported else NOT_SUPPORTED,
                    perspective_id=perspective.pk,
                    evidence_id=evidence.pk,
                )

    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        return write_evidence(decisions)


def write_evidence(decisions: Sequence[Decision]) -> int:
    """A kept (evidence, perspective) pair links the evidence to every cluster the perspective is in;
    a rejected one removes that link, unless a person made it. A cluster whose links change is
    stamped with the writer too (its links are part of what it says)."""
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
    last = last_positions(links.values("cluster_id").annotate(last=Max("position")))
    stamp = provenance.stamp()
    added = []
    for (cluster, evidence), kept in sorted(wanted.items()):
        if kept and (cluster, evidence) not in present:
            last[cluster] = last.get(cluster, -1) + 1
            added.append(
                ClusterEvidence(cluster_id=cluster, evidence_id=evidence, position=last[cluster], **stamp)
            )
    ClusterEvidence.objects.bulk_create(added, batch_size=1000)
    unwanted = {pair for pair, kept in wanted.items() if not kept and pair in present}
    dropped = provenance.guard(links.filter(pk__in=_link_pks(links, unwanted)))
    changed = set(ClusterEvidence.objects.filter(pk__in=dropped).values_list("cluster_id", flat=True))
    ClusterEvidence.objects.filter(pk__in=dropped).delete()
    provenance.touch(PerspectiveCluster.objects.filter(pk__in=changed | {link.cluster_id for link in added}))
    return len(added) + len(dropped)


def _link_pks(links: Any, pairs: set[tuple[int, int]]) -> list[int]:
    return [pk for pk, cluster, evidence in links.values_list("pk", "cluster_id", "evidence_id")
            if (cluster, evidence) in pairs]  # fmt: skip
