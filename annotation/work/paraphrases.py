"""Turn the paraphrases written in a job into candidate perspectives (PERSPECTRUM step 2b).

An answer whose writing the task page flagged (pasted whole, typed faster than people type) waits
for a person: it joins the corpus only once accepted (annotation.quality.writing_records).

The paper's rule: drop paraphrases of ≤ 3 tokens or identical to the original. Duplicates of one
original are kept once (the first writer is its author). Each candidate records its writer, so
the writer never verifies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from annotation.models import Authorship, Job, Response
from annotation.quality.writing_records import held_responses
from corpus.models import Origin, Perspective
from corpus.provenance import Writer
from corpus.services import allocate_ids

TOKEN = re.compile(r"\w+")
SOURCE = "paraphrase"


class ParaphraseCollectionError(ValueError):
    """The job is not a paraphrase-writing job."""


@dataclass(frozen=True)
class CollectReport:
    created: int
    too_short: int
    copies_of_original: int
    duplicates: int
    # Answers whose writing was flagged (pasted, typed too fast) and not yet accepted by a person.
    held_for_review: int = 0


def _normal(text: str) -> str:
    return " ".join(TOKEN.findall(text.lower()))


def collect_paraphrases(job_id: int, *, min_tokens: int | None = None) -> CollectReport:
    """Create a candidate paraphrase perspective for each acceptable written paraphrase; idempotent."""
    job = Job.objects.get(pk=job_id)
    if job.task_type != "paraphrase_writing":
        raise ParaphraseCollectionError(f"job {job.pk} is {job.task_type}, not paraphrase_writing")
    limit = int(job.params.get("min_tokens", 3) if min_tokens is None else min_tokens)
    held = held_responses().filter(response__job=job).values("response_id")
    responses = (
        Response.objects.filter(job=job, is_gold=False)
        .exclude(pk__in=held)
        .select_related("item__perspective")
        .order_by("item_id", "created", "pk")
    )
    with transaction.atomic():
        sorting = _Sorting(_paraphrases_kept(), limit, Writer.job(job.pk, "paraphrases written").fields())
        for response in responses:
            sorting.take(response)
        _store_candidates(sorting.new)
    waiting = held.distinct().count()
    return CollectReport(len(sorting.new), sorting.short, sorting.copies, sorting.duplicates, waiting)


def _paraphrases_kept() -> set[tuple[int, str]]:
    """(original's id, normalised text) of every paraphrase perspective already made."""
    kept = Perspective.objects.filter(origin=Origin.PARAPHRASE, paraphrase_of__isnull=False)
    return {(original, _normal(text)) for original, text in kept.values_list("paraphrase_of_id", "text")}


@dataclass
class _Sorting:
    """Written paraphrases sorted into new candidates and the dropped ones, counted by why."""

    seen: set[tuple[int, str]]
    limit: int  # a paraphrase of this many tokens or fewer is too short
    stamp: dict[str, Any]
    new: list[tuple[Perspective, Response]] = field(default_factory=list)
    short: int = 0
    copies: int = 0
    duplicates: int = 0

    def take(self, response: Response) -> None:
        original = response.item.perspective
        if original is None:
            return
        for text in response.value or []:
            self._take_one(original, " ".join(str(text).split()), response)

    def _take_one(self, original: Perspective, text: str, response: Response) -> None:
        key = (original.pk, _normal(text))
        if len(TOKEN.findall(text)) <= self.limit:
            self.short += 1
        elif key[1] == _normal(original.text):
            self.copies += 1
        elif key in self.seen:
            self.duplicates += 1
        else:
            self.seen.add(key)
            candidate = Perspective(
                text=text, origin=Origin.PARAPHRASE, source=SOURCE, paraphrase_of=original, **self.stamp
            )
            self.new.append((candidate, response))


def _store_candidates(new: list[tuple[Perspective, Response]]) -> None:
    """Save the candidates with fresh pids, each with its writer's authorship."""
    for (candidate, _), pid in zip(new, allocate_ids(Perspective, len(new)), strict=True):
        candidate.pid = pid
    Perspective.objects.bulk_create([candidate for candidate, _ in new])
    Authorship.objects.bulk_create(
        [
            Authorship(perspective=candidate, worker_id=response.worker_id, response=response)
            for candidate, response in new
        ]
    )
