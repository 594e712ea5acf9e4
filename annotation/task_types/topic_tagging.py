"""Topic tagging: tag each claim with topics from the fixed list (the release's `topic.json`)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms

from annotation.simulation import WorkerModel, answer_many
from annotation.task_types.base import Answer, Defaults, ItemSpec, QuizQuestion, TaskType, select_claims
from annotation.task_types.builtin_rules import TOPIC_RULE
from annotation.task_types.decisions import Decision
from corpus import provenance
from corpus.models import ClaimTopic, Topic

if TYPE_CHECKING:
    from annotation.models import Item

# The 18 slugs of PERSPECTRUM's topic.json, used when the corpus has no Topic rows yet.
TOPICS = (
    "culture",
    "digital_freedom",
    "economy",
    "education",
    "environment",
    "ethics",
    "gender",
    "health_and_medicine",
    "human_rights",
    "law",
    "philosophy",
    "politics",
    "religion",
    "science_and_technology",
    "society",
    "sports_and_entertainments",
    "world_international",
    "freedom_of_speech",
)


def topic_choices() -> tuple[tuple[str, str], ...]:
    slugs = list(Topic.objects.values_list("slug", flat=True)) or sorted(TOPICS)
    return tuple((slug, slug.replace("_", " ").capitalize()) for slug in slugs)


QUIZ = (
    QuizQuestion(
        key="q1",
        context=(("Claim", "Schools should teach climate science from the age of five."),),
        question="Which one topic fits this claim best?",
        choices=(("education", "Education"), ("religion", "Religion"), ("gender", "Gender")),
        answer="education",
    ),
    QuizQuestion(
        key="q2",
        context=(("Claim", "Doping should be allowed in professional sport."),),
        question="Which one topic fits this claim best?",
        choices=(
            ("economy", "Economy"),
            ("sports_and_entertainments", "Sports and entertainments"),
            ("law", "Law"),
        ),
        answer="sports_and_entertainments",
    ),
)


class TopicTaggingTaskType(TaskType):
    slug = "topic_tagging"
    name = "Topic tagging"
    summary = "Tag each claim with one or more topics."
    defaults = Defaults(
        groups_per_hit=10, workers_per_item=2, reward=Decimal("0.50"), extra={"gold_min_overlap": 0.5}
    )
    quiz = QUIZ
    aggregation = TOPIC_RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        claims = list(select_claims(filters))
        known: dict[int, list[str]] = {}
        for link in (
            ClaimTopic.objects.filter(claim__in=claims).select_related("topic").order_by("claim", "position")
        ):
            known.setdefault(link.claim_id, []).append(link.topic.slug)
        for claim in claims:
            yield ItemSpec(
                key=f"c{claim.cid}",
                group=f"c{claim.cid}",
                payload={"cid": claim.cid, "claim": claim.text},
                known_answer=known.get(claim.pk),
                claim_id=claim.pk,
            )

    def fields(self, item: Item) -> dict[str, forms.Field]:
        return {
            "": forms.MultipleChoiceField(
                choices=topic_choices(), widget=forms.CheckboxSelectMultiple, required=True
            )
        }

    def answer(self, item: Item, cleaned: Mapping[str, Any]) -> Answer:
        chosen = sorted(cleaned[""])
        return Answer(label=",".join(chosen), value=chosen)

    def is_correct(self, item: Item, answer: Answer) -> bool:
        """Right when the chosen and known topics overlap (Jaccard) at least `gold_min_overlap`."""
        known, chosen = set(item.known_answer or []), set(answer.value or [])
        if not known or not chosen:
            return False
        return len(known & chosen) / len(known | chosen) >= float(
            item.job.params.get("gold_min_overlap", 0.5)
        )

    def simulate(self, item: Item, worker: WorkerModel, rng: random.Random) -> Answer:
        slugs = [slug for slug, _ in topic_choices()]
        chosen = sorted(answer_many(worker, list(item.known_answer or []), slugs, rng)) or [rng.choice(slugs)]
        return Answer(label=",".join(chosen), value=chosen)

    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        return write_topics({d.claim_id: d.labels for d in decisions if d.claim_id})


def write_topics(topics: Mapping[int, Sequence[str]]) -> int:
    """Each claim's topics, replaced by the kept ones in their order; a claim whose topics a person
    set (any of its topic rows) keeps them."""
    present = ClaimTopic.objects.filter(claim_id__in=list(topics))
    allowed = set(provenance.guard(present))
    held = set(present.exclude(pk__in=allowed).values_list("claim_id", flat=True))
    topics = {claim: chosen for claim, chosen in topics.items() if claim not in held}
    slugs = {slug for chosen in topics.values() for slug in chosen}
    known = dict(Topic.objects.filter(slug__in=slugs).values_list("slug", "pk"))
    for slug in sorted(slugs - set(known)):
        known[slug] = Topic.objects.create(slug=slug, name=slug.replace("_", " ").capitalize()).pk
    ClaimTopic.objects.filter(claim_id__in=list(topics)).delete()
    stamp = provenance.stamp()
    ClaimTopic.objects.bulk_create(
        [
            ClaimTopic(claim_id=claim, topic_id=known[slug], position=position, **stamp)
            for claim, chosen in topics.items()
            for position, slug in enumerate(chosen)
        ],
        batch_size=1000,
    )
    return len(topics)
