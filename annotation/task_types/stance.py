"""Stance verification (PERSPECTRUM step 2a): one of 5 labels for a (claim, perspective) pair."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.utils import timezone

from annotation.task_types.base import Answer, Defaults, ItemSpec, QuizQuestion, TaskType, select_clusters
from annotation.task_types.builtin_rules import STANCE_RULE
from annotation.task_types.decisions import Decision
from corpus import provenance
from corpus.models import ClusterMember, PerspectiveCluster, Side, Stance5, Status

if TYPE_CHECKING:
    from annotation.models import Item

LABELS = (
    (Stance5.SUPPORT.value, "Supports"),
    (Stance5.MILDLY_SUPPORT.value, "Mildly supports"),
    (Stance5.MILDLY_UNDERMINE.value, "Mildly opposes"),
    (Stance5.UNDERMINE.value, "Opposes"),
    (Stance5.NOT_VALID.value, "Not a valid perspective"),
)
# Mild labels count as their strong side when checking gold: the paper collapses 5 → 3 the same way.
SIDE = {
    Stance5.SUPPORT: "support",
    Stance5.MILDLY_SUPPORT: "support",
    Stance5.UNDERMINE: "undermine",
    Stance5.MILDLY_UNDERMINE: "undermine",
    Stance5.NOT_VALID: "not_valid",
}
FROM_CRAWLED_SIDE = {Side.PRO: Stance5.SUPPORT.value, Side.CON: Stance5.UNDERMINE.value}

CLAIM = "Animals should have lawful rights."
QUIZ = (
    QuizQuestion(
        key="q1",
        context=(("Claim", CLAIM), ("Perspective", "Animals are equal to human beings.")),
        question="How does the perspective relate to the claim?",
        choices=LABELS,
        answer=Stance5.SUPPORT.value,
        explanation="If animals are our equals, they deserve rights: a clear argument for the claim.",
    ),
    QuizQuestion(
        key="q2",
        context=(("Claim", CLAIM), ("Perspective", "Humans need to use animals for medical research.")),
        question="How does the perspective relate to the claim?",
        choices=LABELS,
        answer=Stance5.UNDERMINE.value,
        explanation="Lawful rights would stop such research: the perspective argues against the claim.",
    ),
    QuizQuestion(
        key="q3",
        context=(("Claim", CLAIM), ("Perspective", "The weather was lovely yesterday.")),
        question="How does the perspective relate to the claim?",
        choices=LABELS,
        answer=Stance5.NOT_VALID.value,
        explanation="It takes no side on the claim at all, so it is not a valid perspective.",
    ),
    QuizQuestion(
        key="q4",
        context=(
            ("Claim", "Homework should be banned."),
            ("Perspective", "Homework teaches pupils to work independently."),
        ),
        question="How does the perspective relate to the claim?",
        choices=LABELS,
        answer=Stance5.UNDERMINE.value,
        explanation="A benefit of homework is a reason not to ban it.",
    ),
)


def known_stance(cluster: PerspectiveCluster) -> str | None:
    """The stance a simulated crowd answers from: the cluster's 5-way label, else the crawled side."""
    if cluster.stance_5 in SIDE:
        return cluster.stance_5
    if cluster.source_side:
        return FROM_CRAWLED_SIDE.get(Side(cluster.source_side))
    votes = list(cluster.voter_counts or [])
    if len(votes) == len(LABELS) and sum(votes) > 0:
        # No majority in the release: the most voted label, ties to the first in the release's order.
        return LABELS[votes.index(max(votes))][0]
    return None


class StanceTaskType(TaskType):
    slug = "stance"
    name = "Stance verification"
    summary = "Does the perspective support or oppose the claim? Five labels."
    labels = LABELS
    machine_texts = ("claim", "perspective")
    machine_prompt_version = "stance-1"
    machine_prompt = (
        "Claim: {claim}\nPerspective: {perspective}\n\nHow does the perspective relate to the claim? "
        "Reply with exactly one of these words and nothing else: SUPPORT (supports it), MILDLY_SUPPORT, "
        "MILDLY_UNDERMINE, UNDERMINE (argues against it), NOT_VALID (not a perspective on this claim)."
    )
    defaults = Defaults(
        groups_per_hit=10,
        workers_per_item=3,
        reward=Decimal("1.50"),
        # "original": the cluster's first perspective only; "all": every member (the release's pairs).
        extra={"members": "original"},
    )
    quiz = QUIZ
    aggregation = STANCE_RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        clusters = {cluster.pk: cluster for cluster in select_clusters(filters)}
        members = ClusterMember.objects.filter(cluster__in=list(clusters)).select_related("perspective")
        if params.get("members", "original") == "original":
            members = members.filter(position=0)
        ordered = sorted(
            members,
            key=lambda m: (clusters[m.cluster_id].claim.cid, clusters[m.cluster_id].position, m.position),
        )
        seen: set[tuple[int, int]] = set()
        for member in ordered:
            cluster, perspective = clusters[member.cluster_id], member.perspective
            claim = cluster.claim
            # A release may list one perspective in two clusters of a claim: it is one pair to judge.
            if perspective.quality_flag or (claim.pk, perspective.pk) in seen:
                continue
            seen.add((claim.pk, perspective.pk))
            yield ItemSpec(
                key=f"c{claim.cid}-p{perspective.pid}",
                group=f"c{claim.cid}",
                payload={
                    "cid": claim.cid,
                    "claim": claim.text,
                    "pid": perspective.pid,
                    "perspective": perspective.text,
                },
                known_answer=known_stance(cluster),
                claim_id=claim.pk,
                perspective_id=perspective.pk,
                cluster_id=cluster.pk,
            )

    def is_correct(self, item: Item, answer: Answer) -> bool:
        known = item.known_answer
        return known in SIDE and SIDE.get(Stance5(answer.label)) == SIDE[Stance5(known)]

    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        return write_stances(decisions, rule)

    def write_adjudication(self, decision: Decision, rule: str) -> None:
        """The expert's label onto the cluster, whose status says an expert decided it."""
        if decision.cluster_id is None:
            return
        PerspectiveCluster.objects.filter(pk=decision.cluster_id).update(
            stance_5=decision.fine_label,
            stance_3=decision.label,
            status=Status.ADJUDICATED if decision.kept else Status.REJECTED,
            rule=rule[:200],
            updated=timezone.now(),
            **provenance.stamp(),
        )

    def corpus_status(self, item: Item) -> str | None:
        if not item.cluster_id:
            return None
        return PerspectiveCluster.objects.filter(pk=item.cluster_id).values_list("status", flat=True)[0]

    def reference_answers(self, items: QuerySet[Item]) -> dict[int, str]:
        """The side the debate site put the point on, as the strong stance on that side."""
        sides = items.filter(cluster__source_side__in=list(FROM_CRAWLED_SIDE)).values_list(
            "pk", "cluster__source_side"
        )
        return {pk: FROM_CRAWLED_SIDE[Side(side)] for pk, side in sides}


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


def write_stances(decisions: Sequence[Decision], rule: str) -> int:
    """Stance labels, voter counts, ρ, status and rule onto each decided cluster.

    One UPDATE per distinct outcome (with three raters there are a few dozen) rather than a
    ``bulk_update``, whose per-row CASE expressions took seconds for a thousand clusters. A cluster a
    person wrote last (an expert's label, a merge) keeps what the person wrote.
    """
    chosen = original_first(decisions)
    allowed = set(provenance.guard(PerspectiveCluster.objects.filter(pk__in=[d.cluster_id for d in chosen])))
    groups: dict[tuple[str, str, tuple[int, ...], float | None, bool], list[int]] = {}
    for d in chosen:
        assert d.cluster_id is not None
        if d.cluster_id in allowed:
            key = (d.label, d.fine_label, tuple(d.counts), d.agreement, d.kept)
            groups.setdefault(key, []).append(d.cluster_id)
    now = timezone.now()
    stamp = provenance.stamp(now)
    for (label, fine_label, counts, agreement, kept), clusters in groups.items():
        PerspectiveCluster.objects.filter(pk__in=clusters).update(
            stance_3=label,
            stance_5=fine_label,
            voter_counts=list(counts),
            agreement=agreement,
            status=Status.KEPT if kept else Status.REJECTED,
            rule=rule[:200],
            updated=now,
            **stamp,
        )
    return sum(len(clusters) for clusters in groups.values())
