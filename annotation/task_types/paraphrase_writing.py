"""Paraphrase writing (PERSPECTRUM step 2b): two paraphrases of each perspective, optional hints."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms

from annotation.simulation import WorkerModel
from annotation.task_types.base import Answer, Defaults, ItemSpec, QuizQuestion, TaskType, select_clusters
from corpus.models import ClusterMember

if TYPE_CHECKING:
    from annotation.models import Item

SAME, DIFFERENT = "same", "different"
QUIZ_CHOICES = ((SAME, "A good paraphrase"), (DIFFERENT, "Not a paraphrase"))
ORIGINAL = "School uniforms reduce bullying."
QUIZ = (
    QuizQuestion(
        key="q1",
        context=(("Perspective", ORIGINAL), ("Rewrite", "Pupils in uniform are bullied less.")),
        question="Is the rewrite a good paraphrase of the perspective?",
        choices=QUIZ_CHOICES,
        answer=SAME,
        explanation="Different words, same argument.",
    ),
    QuizQuestion(
        key="q2",
        context=(("Perspective", ORIGINAL), ("Rewrite", "School uniforms are expensive.")),
        question="Is the rewrite a good paraphrase of the perspective?",
        choices=QUIZ_CHOICES,
        answer=DIFFERENT,
        explanation="A different argument altogether.",
    ),
    QuizQuestion(
        key="q3",
        context=(("Perspective", ORIGINAL), ("Rewrite", "School uniforms reduce bullying.")),
        question="Is the rewrite a good paraphrase of the perspective?",
        choices=QUIZ_CHOICES,
        answer=DIFFERENT,
        explanation="A copy is not a paraphrase: rewrite it in your own words.",
    ),
)
TOKEN = re.compile(r"\w+")
# Openers a simulated writer uses; the words change, the argument does not.
OPENERS = ("In other words, ", "Put simply, ", "Essentially, ", "It can be said that ")


def normalise(text: str) -> str:
    return " ".join(TOKEN.findall(text.lower()))


class ParaphraseField(forms.CharField):
    def __init__(self, original: str, min_tokens: int) -> None:
        super().__init__(max_length=500, widget=forms.Textarea(attrs={"rows": 2}))
        self.original = normalise(original)
        self.min_tokens = min_tokens

    def validate(self, value: Any) -> None:
        super().validate(value)
        if len(TOKEN.findall(value)) <= self.min_tokens:
            raise forms.ValidationError(f"Write more than {self.min_tokens} words.")
        if normalise(value) == self.original:
            raise forms.ValidationError("That is the original sentence: use your own words.")


class ParaphraseWritingTaskType(TaskType):
    slug = "paraphrase_writing"
    name = "Paraphrase writing"
    summary = "Write two paraphrases of each perspective."
    defaults = Defaults(
        groups_per_hit=15,
        workers_per_item=3,
        reward=Decimal("1.50"),
        extra={"paraphrases": 2, "hints": 15, "min_tokens": 3},
    )
    quiz = QUIZ

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        clusters = {cluster.pk: cluster for cluster in select_clusters(filters)}
        originals = ClusterMember.objects.filter(cluster__in=list(clusters), position=0).select_related(
            "perspective"
        )
        hints: Mapping[str, list[str]] = filters.get("hints") or {}
        for member in sorted(
            originals, key=lambda m: (clusters[m.cluster_id].claim.cid, clusters[m.cluster_id].position)
        ):
            cluster, perspective = clusters[member.cluster_id], member.perspective
            if perspective.quality_flag:
                continue
            key = f"c{cluster.claim.cid}-p{perspective.pid}"
            yield ItemSpec(
                key=key,
                group=key,
                payload={
                    "claim": cluster.claim.text,
                    "perspective": perspective.text,
                    "pid": perspective.pid,
                    # Retrieved hint sentences are passed in by whoever ran the retrieval.
                    "hints": list(hints.get(str(perspective.pid), []))[: int(params["hints"])],
                },
                claim_id=cluster.claim_id,
                perspective_id=perspective.pk,
                cluster_id=cluster.pk,
            )

    def select_gold(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        # Free text has no single right answer, so writing jobs take no gold items.
        return iter(())

    def fields(self, item: Item) -> dict[str, forms.Field]:
        count = int(item.job.params.get("paraphrases", 2))
        min_tokens = int(item.job.params.get("min_tokens", 3))
        return {f"{n}": ParaphraseField(item.payload["perspective"], min_tokens) for n in range(1, count + 1)}

    def answer(self, item: Item, cleaned: Mapping[str, Any]) -> Answer:
        return Answer(value=[cleaned[suffix].strip() for suffix in sorted(cleaned)])

    def is_correct(self, item: Item, answer: Answer) -> bool:
        return False

    def simulate(self, item: Item, worker: WorkerModel, rng: random.Random) -> Answer:
        text = item.payload["perspective"].rstrip(".")
        lowered = text[:1].lower() + text[1:]
        count = int(item.job.params.get("paraphrases", 2))
        if worker.spammer:
            # Spammers paste the original, which the paraphrase rules then drop.
            return Answer(value=[item.payload["perspective"]] * count)
        openers = rng.sample(OPENERS, k=min(count, len(OPENERS)))
        return Answer(value=[f"{opener}{lowered}." for opener in openers])
