"""Topic + stance with correction (VAST, Allaway & McKeown 2020, §3.1.2).

The worker first lists the topics of a comment, so a proposed topic cannot bias them; then, for the
proposed topic, gives a stance on a 5-point scale (mapped to pro/con/neutral), or corrects the topic
when it makes no sense and gives the stance on their own topic. Three workers per item.

Comments are PERSPECTRUM perspectives and evidence paragraphs; the proposed topic is one of the
claim's topics (corpus `Topic` via `ClaimTopic`), broad categories much like the New York Times
categories VAST fell back on. The VAST-specific analysis (MACE's poor workers, Krippendorff's α, the
released CSV columns, synthetic neutral examples) needs aggregation, so it lives in `export.vast`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms

from annotation.simulation import WorkerModel, answer
from annotation.task_types.base import Answer, Defaults, ItemSpec, QuizQuestion, TaskType, select_clusters
from annotation.task_types.builtin_rules import (
    CON,
    CORRECTED,
    NEUTRAL,
    PRO,
    STRONGLY_CON,
    STRONGLY_PRO,
    VAST_5_TO_3,
    VAST_RULE,
)
from annotation.task_types.stance import SIDE, known_stance
from annotation.task_types.vast_topics import split_topic_list, topic_string, words
from corpus.models import ClaimTopic, ClusterEvidence, ClusterMember, PerspectiveCluster, Stance5

if TYPE_CHECKING:
    from annotation.models import Item

# The form stores lower case; the rule spells upper case (VAST_RULE.spelling).
LABELS = (
    (STRONGLY_CON.lower(), "Strongly against"),
    (CON.lower(), "Somewhat against"),
    (NEUTRAL.lower(), "Neutral / neither"),
    (PRO.lower(), "Somewhat in favour"),
    (STRONGLY_PRO.lower(), "Strongly in favour"),
)
# A perspective's stance on its claim, as the side a simulated worker takes on the claim's topic.
STANCE_ON_TOPIC = {"support": PRO, "undermine": CON, "not_valid": NEUTRAL}
MAX_TOPICS, MAX_TOPIC_WORDS = 8, 8

QUIZ_CHOICES = (
    (PRO.lower(), "In favour"),
    (CON.lower(), "Against"),
    (NEUTRAL.lower(), "Neutral"),
    (CORRECTED.lower(), "The topic makes no sense: correct it"),
)
QUESTION = "What stance does the comment take on the topic?"
# Comments and topics from the paper's Tables 1 and 2 (VAST, §1 and §3).
QUIZ = (
    QuizQuestion(
        key="q1",
        context=(
            (
                "Comment",
                "The jury's verdict will ensure that another violent criminal alien will be removed from "
                "our community for a very long period.",
            ),
            ("Topic", "immigration"),
        ),
        question=QUESTION,
        choices=QUIZ_CHOICES,
        answer=CON.lower(),
        explanation="Describing a crime by an 'alien' this way takes a stance against immigration.",
    ),
    QuizQuestion(
        key="q2",
        context=(
            (
                "Comment",
                "I like being able to access the internet about my health issues, and find I can talk "
                "with my doctors.",
            ),
            ("Topic", "medical websites"),
        ),
        question=QUESTION,
        choices=QUIZ_CHOICES,
        answer=PRO.lower(),
        explanation="Finding health information online is presented as a good thing.",
    ),
    QuizQuestion(
        key="q3",
        context=(
            (
                "Comment",
                "Instead they have to work jobs (while their tax dollars are going to supporting illegal "
                "aliens) in order to put themselves through college.",
            ),
            ("Topic", "a problem"),
        ),
        question=QUESTION,
        choices=QUIZ_CHOICES,
        answer=CORRECTED.lower(),
        explanation="'A problem' is too vague to take a position on: write a topic such as 'immigration'.",
    ),
)


class TopicListField(forms.CharField):
    """The topics a worker lists, one per line or comma-separated; cleaned to a list."""

    def __init__(self) -> None:
        super().__init__(max_length=600, widget=forms.Textarea(attrs={"rows": 2}))

    def clean(self, value: Any) -> list[str]:
        topics = split_topic_list(super().clean(value))
        if not topics:
            raise forms.ValidationError("List at least one topic.")
        if len(topics) > MAX_TOPICS:
            raise forms.ValidationError(f"List at most {MAX_TOPICS} topics.")
        for topic in topics:
            check_topic(topic)
        return topics


class CorrectionField(forms.CharField):
    """A better topic than the proposed one, or nothing."""

    def __init__(self, proposed: str) -> None:
        super().__init__(max_length=100, required=False, widget=forms.TextInput(attrs={"size": 40}))
        self.proposed = topic_string(proposed)

    def clean(self, value: Any) -> str:
        topic = " ".join(str(super().clean(value)).split())
        if topic:
            check_topic(topic)
            if topic_string(topic) == self.proposed:
                raise forms.ValidationError("That is the proposed topic: leave the box empty to keep it.")
        return topic


def check_topic(topic: str) -> None:
    if not words(topic):
        raise forms.ValidationError(f"{topic!r} is not a topic: use words such as 'school uniforms'.")
    if len(topic.split()) > MAX_TOPIC_WORDS:
        raise forms.ValidationError(f"Keep each topic to {MAX_TOPIC_WORDS} words or fewer.")


class VastStanceTaskType(TaskType):
    slug = "vast_stance"
    name = "Topic + stance with correction (VAST)"
    summary = "List a comment's topics, then give its stance on a proposed topic or correct the topic."
    labels = LABELS
    defaults = Defaults(
        groups_per_hit=5,
        workers_per_item=3,
        reward=Decimal("0.13"),  # VAST paid $0.13 per HIT (appendix A.0.1)
        extra={
            "perspectives_per_claim": 3,
            "evidence_per_claim": 1,
            "topics_per_comment": 1,
            # The simulated crowd only: how often a worker corrects the topic (VAST: about 30%, §3.2).
            "correction_rate": 0.3,
        },
    )
    quiz = QUIZ
    aggregation = VAST_RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        clusters = [cluster for cluster in select_clusters(filters) if comment_stance(cluster)]
        topics = claim_topics({cluster.claim_id for cluster in clusters})
        seen: set[str] = set()
        for comment in comments(clusters, params):
            cluster = comment.cluster
            claim_topic_names = topics.get(cluster.claim_id, [])
            for topic in claim_topic_names[: int(params["topics_per_comment"])]:
                key = f"{comment.key}-{topic_string(topic).replace(' ', '_')}"
                if key in seen:
                    continue
                seen.add(key)
                yield ItemSpec(
                    key=key,
                    group=comment.key,
                    payload={
                        "comment": comment.text,
                        "kind": comment.kind,
                        "cid": cluster.claim.cid,
                        "topic": topic,
                        **comment.ids,
                    },
                    known_answer={
                        "stance": comment_stance(cluster),
                        "correction": cluster.claim.text.rstrip(". "),
                        "listed": claim_topic_names,
                    },
                    claim_id=cluster.claim_id,
                    perspective_id=comment.perspective_id,
                    cluster_id=cluster.pk,
                    evidence_id=comment.evidence_id,
                )

    def fields(self, item: Item) -> dict[str, forms.Field]:
        return {
            "topics": TopicListField(),
            "stance": forms.ChoiceField(choices=self.labels, widget=forms.RadioSelect, required=True),
            "correction": CorrectionField(str(item.payload.get("topic", ""))),
        }

    def answer(self, item: Item, cleaned: Mapping[str, Any]) -> Answer:
        stance, correction = str(cleaned["stance"]), str(cleaned.get("correction") or "")
        return Answer(
            label=CORRECTED.lower() if correction else stance,
            value={"topics": list(cleaned["topics"]), "stance": stance.upper(), "correction": correction},
        )

    def is_correct(self, item: Item, answer: Answer) -> bool:
        """Right when the stance on the proposed topic has the known side; a correction is not."""
        known = (item.known_answer or {}).get("stance")
        label = answer.label.upper()
        return label in VAST_5_TO_3 and VAST_5_TO_3[label] == known

    def simulate(self, item: Item, worker: WorkerModel, rng: random.Random) -> Answer:
        """A modelled worker: lists the claim's topics, then (at `correction_rate`, diligent workers
        only) corrects the topic to the claim, whose stance is known, or gives a stance on the
        proposed topic: the perspective's side on the claim, the simulation's stand-in."""
        known = dict(item.known_answer or {})
        side = str(known.get("stance") or NEUTRAL)
        strong = {PRO: STRONGLY_PRO, CON: STRONGLY_CON}.get(side, NEUTRAL)
        known_label = rng.choice([side, strong]).lower()
        stance = answer(worker, known_label, self.label_values, rng)
        listed = [t for t in known.get("listed", []) if rng.random() < worker.accuracy]
        if worker.spammer or not listed:
            # A spammer (or a worker who missed every topic) types a word of the comment as its topic.
            listed = [rng.choice(words(item.payload["comment"]) or [item.payload["topic"]])]
        rate = float(item.job.params.get("correction_rate", 0.3))
        correction = ""
        if not worker.spammer and known.get("correction") and rng.random() < rate:
            correction = str(known["correction"])
        value = {"topics": listed, "stance": stance.upper(), "correction": correction}
        return Answer(label=CORRECTED.lower() if correction else stance, value=value)


# Selection --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comment:
    """A perspective or an evidence paragraph shown as a comment, with the cluster that gives its stance."""

    kind: str  # "perspective" or "evidence"
    number: int  # its pId or eId
    text: str
    cluster: PerspectiveCluster
    pk: int

    @property
    def key(self) -> str:
        return f"{self.kind[0]}{self.number}"

    @property
    def ids(self) -> dict[str, int]:
        return {"pid" if self.kind == "perspective" else "eid": self.number}

    @property
    def perspective_id(self) -> int | None:
        return self.pk if self.kind == "perspective" else None

    @property
    def evidence_id(self) -> int | None:
        return self.pk if self.kind == "evidence" else None


def comment_stance(cluster: PerspectiveCluster) -> str | None:
    """PRO, CON or NEUTRAL: the cluster's stance on its claim, when known."""
    stance = known_stance(cluster)
    return STANCE_ON_TOPIC[SIDE[Stance5(stance)]] if stance else None


def claim_topics(claims: set[int]) -> dict[int, list[str]]:
    """Per claim pk, the names of its topics in their order, lowercased."""
    found: dict[int, list[str]] = {}
    links = ClaimTopic.objects.filter(claim__in=claims).select_related("topic")
    for link in links.order_by("claim", "position"):
        found.setdefault(link.claim_id, []).append(link.topic.name.lower())
    return found


def comments(clusters: Sequence[PerspectiveCluster], params: Mapping[str, Any]) -> Iterator[Comment]:
    """Per claim, the originals of its first `perspectives_per_claim` clusters, then the paragraphs
    linked to them, up to `evidence_per_claim`."""
    by_claim: dict[int, list[PerspectiveCluster]] = {}
    for cluster in clusters:
        by_claim.setdefault(cluster.claim_id, []).append(cluster)
    per_claim, evidence_per_claim = int(params["perspectives_per_claim"]), int(params["evidence_per_claim"])
    for group in by_claim.values():
        chosen = {cluster.pk: cluster for cluster in group[:per_claim]}
        originals = ClusterMember.objects.filter(cluster__in=list(chosen), position=0).select_related(
            "perspective"
        )
        for member in sorted(originals, key=lambda m: (chosen[m.cluster_id].position, m.perspective.pid)):
            if not member.perspective.quality_flag:
                p = member.perspective
                yield Comment("perspective", p.pid, p.text, chosen[member.cluster_id], p.pk)
        links = ClusterEvidence.objects.filter(cluster__in=list(chosen), evidence__text_missing=False)
        shown: set[int] = set()
        for link in links.select_related("evidence").order_by("cluster__position", "position"):
            if len(shown) < evidence_per_claim and link.evidence_id not in shown:
                shown.add(link.evidence_id)
                e = link.evidence
                yield Comment("evidence", e.eid, e.text, chosen[link.cluster_id], e.pk)
