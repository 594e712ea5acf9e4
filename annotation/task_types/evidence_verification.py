"""Evidence verification (PERSPECTRUM step 3): does the paragraph support each candidate perspective?

Candidates per paragraph come from retrieval, passed in as the `candidates` filter
({eId: [pId, ...]}); without it, the perspectives of the claims the paragraph is linked to.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db.models import Max

from annotation.task_types import base
from annotation.task_types.builtin_rules import EVIDENCE_RULE
from annotation.task_types.decisions import Decision
from corpus import provenance, removals
from corpus.models import (
    ClusterEvidence,
    ClusterMember,
    Evidence,
    Perspective,
    PerspectiveCluster,
    WrittenBy,
)

SUPPORTED, NOT_SUPPORTED = "supported", "not_supported"
LABELS = ((SUPPORTED, "Supported"), (NOT_SUPPORTED, "Not supported"))
PARAGRAPH = (
    "A four-year study of 2,000 pupils found that schools which introduced uniforms saw reports of "
    "bullying fall by a third, as visible differences in wealth between pupils disappeared."
)
QUIZ = (
    base.QuizQuestion(
        key="q1",
        context=(("Paragraph", PARAGRAPH), ("Perspective", "School uniforms reduce bullying.")),
        question="Does the paragraph support the perspective?",
        choices=LABELS,
        answer=SUPPORTED,
    ),
    base.QuizQuestion(
        key="q2",
        context=(("Paragraph", PARAGRAPH), ("Perspective", "Uniforms stifle pupils' creativity.")),
        question="Does the paragraph support the perspective?",
        choices=LABELS,
        answer=NOT_SUPPORTED,
    ),
)


class EvidenceVerificationTaskType(base.TaskType):
    slug = "evidence_verification"
    name = "Evidence verification"
    summary = "Does the paragraph support each candidate perspective?"
    labels = LABELS
    machine_texts = ("perspective", "evidence")
    defaults = base.Defaults(
        groups_per_hit=20, workers_per_item=4, reward=Decimal("1.00"), extra={"candidates": 8}
    )
    quiz = QUIZ
    aggregation = EVIDENCE_RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[base.ItemSpec]:
        clusters = list(base.select_clusters(filters))
        links = ClusterEvidence.objects.filter(cluster__in=clusters).select_related(
            "evidence", "cluster__claim"
        )
        originals = dict(
            ClusterMember.objects.filter(cluster__in=clusters, position=0).values_list(
                "cluster_id", "perspective_id"
            )
        )
        supported = {(link.evidence_id, originals.get(link.cluster_id)) for link in links}
        by_evidence = {link.evidence_id: link.evidence for link in links if not link.evidence.text_missing}
        from_claims = _perspectives_of_linked_claims(clusters, links, originals)
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
                pks = list(from_claims[evidence.pk])
                # Shuffled with the job's seed so a supported candidate's place gives nothing away.
                rng.shuffle(pks)
            for perspective in Perspective.objects.filter(pk__in=pks[:limit]).order_by("pid"):
                yield _evidence_item(evidence, perspective, supported)

    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        return write_evidence(decisions)


def _perspectives_of_linked_claims(
    clusters: Sequence[PerspectiveCluster], links: Iterable[ClusterEvidence], originals: Mapping[int, int]
) -> dict[int, list[int]]:
    """Per evidence (pk), the original perspectives (pks, sorted) of every selected cluster of every
    claim the evidence is linked to: its candidates when the job names none."""
    claim_perspectives: dict[int, list[int]] = {}
    for cluster in clusters:
        if cluster.pk in originals:
            claim_perspectives.setdefault(cluster.claim_id, []).append(originals[cluster.pk])
    evidence_claims: dict[int, set[int]] = {}
    for link in links:
        evidence_claims.setdefault(link.evidence_id, set()).add(link.cluster.claim_id)
    return {
        evidence: sorted({pk for cid in claims for pk in claim_perspectives.get(cid, [])})
        for evidence, claims in evidence_claims.items()
    }


def _evidence_item(
    evidence: Evidence, perspective: Perspective, supported: set[tuple[int, int | None]]
) -> base.ItemSpec:
    return base.ItemSpec(
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


def write_evidence(decisions: Sequence[Decision]) -> int:
    """A kept (evidence, perspective) pair links the evidence to every cluster the perspective is in;
    a cluster's link is removed only when every decision of the job on it (one per member asked
    about) rejects it, so the outcome never depends on the order decisions come in. A link a person
    made stays, and one a person removed is not added back. A cluster whose links change is stamped
    with the writer too (its links are part of what it says)."""
    supported = _supported_by_cluster(decisions)
    links = ClusterEvidence.objects.filter(cluster_id__in={cluster for cluster, _ in supported})
    present = set(links.values_list("cluster_id", "evidence_id"))
    missing = {pair for pair, kept in supported.items() if kept and pair not in present}
    if provenance.active().writer.kind == WrittenBy.PERSON:
        # A person who confirms a link decides it: the job's later re-runs leave it alone.
        confirmed = {pair for pair, kept in supported.items() if kept and pair in present}
        mine = provenance.guard(links.filter(pk__in=_link_pks(links, confirmed)))
        ClusterEvidence.objects.filter(pk__in=mine).update(**provenance.stamp())
    last = base.last_positions(links.values("cluster_id").annotate(last=Max("position")))
    stamp = provenance.stamp()
    added = []
    for cluster, evidence in sorted(missing - removals.withheld(ClusterEvidence, missing)):
        last[cluster] = last.get(cluster, -1) + 1
        added.append(
            ClusterEvidence(cluster_id=cluster, evidence_id=evidence, position=last[cluster], **stamp)
        )
    ClusterEvidence.objects.bulk_create(added, batch_size=1000)
    unwanted = {pair for pair, kept in supported.items() if not kept and pair in present}
    dropped = provenance.guard(links.filter(pk__in=_link_pks(links, unwanted)))
    changed = set(ClusterEvidence.objects.filter(pk__in=dropped).values_list("cluster_id", flat=True))
    removals.delete(ClusterEvidence.objects.filter(pk__in=dropped))
    provenance.touch(PerspectiveCluster.objects.filter(pk__in=changed | {link.cluster_id for link in added}))
    return len(added) + len(dropped)


def _supported_by_cluster(decisions: Sequence[Decision]) -> dict[tuple[int, int], bool]:
    """(cluster, evidence) → whether any of the decisions supports the evidence for a member of the
    cluster (its members are equivalent: support for one is support for the cluster)."""
    perspectives = {d.perspective_id for d in decisions}
    clusters_of: dict[int, list[int]] = {}
    for cluster_id, perspective_id in ClusterMember.objects.filter(
        perspective_id__in=perspectives
    ).values_list("cluster_id", "perspective_id"):
        clusters_of.setdefault(perspective_id, []).append(cluster_id)
    supported: dict[tuple[int, int], bool] = {}
    for d in decisions:
        if d.perspective_id is None or d.evidence_id is None:
            continue
        for cluster in clusters_of.get(d.perspective_id, []):
            supported[(cluster, d.evidence_id)] = supported.get((cluster, d.evidence_id), False) or d.kept
    return supported


def _link_pks(links: Any, pairs: set[tuple[int, int]]) -> list[int]:
    return [
        pk
        for pk, cluster, evidence in links.values_list("pk", "cluster_id", "evidence_id")
        if (cluster, evidence) in pairs
    ]
