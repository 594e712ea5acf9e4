"""Turn the paraphrases written in a job into candidate perspectives (PERSPECTRUM step 2b).

The paper's rule: drop paraphrases of ≤ 3 tokens or identical to the original. Duplicates of one
original are kept once (the first writer is its author). Each candidate records its writer, so
the writer never verifies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import transaction

from annotation.models import Authorship, Job, Response
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


def _normal(text: str) -> str:
    return " ".join(TOKEN.findall(text.lower()))


def collect_paraphrases(job_id: int, *, min_tokens: int | None = None) -> CollectReport:
    """Create a candidate paraphrase perspective for each acceptable written paraphrase; idempotent."""
    job = Job.objects.get(pk=job_id)
    if job.task_type != "paraphrase_writing":
        raise ParaphraseCollectionError(f"job {job.pk} is {job.task_type}, not paraphrase_writing")
    limit = int(job.params.get("min_tokens", 3) if min_tokens is None else min_tokens)
    responses = (
        Response.objects.filter(job=job, is_gold=False)
        .select_related("item__perspective")
        .order_by("item_id", "created", "pk")
    )
    with transaction.atomic():
        seen = {
            (original, _normal(text))
            for original, text in Perspective.objects.filter(
                origin=Origin.PARAPHRASE, paraphrase_of__isnull=False
            ).values_list("paraphrase_of_id", "text")
        }
        new: list[tuple[Perspective, Response]] = []
        short = copies = duplicates = 0
        stamp = Writer.job(job.pk, "paraphrases written").fields()
        for response in responses:
            original = response.item.perspective
            if original is None:
                continue
            for text in response.value or []:
                text = " ".join(str(text).split())
                key = (original.pk, _normal(text))
                if len(TOKEN.findall(text)) <= limit:
                    short += 1
                elif key[1] == _normal(original.text):
                    copies += 1
                elif key in seen:
                    duplicates += 1
                else:
                    seen.add(key)
                    candidate = Perspective(
                        text=text, origin=Origin.PARAPHRASE, source=SOURCE, paraphrase_of=original, **stamp
                    )
                    new.append((candidate, response))
        for (candidate, _), pid in zip(new, allocate_ids(Perspective, len(new)), strict=True):
            candidate.pid = pid
        Perspective.objects.bulk_create([candidate for candidate, _ in new])
        Authorship.objects.bulk_create(
            [
                Authorship(perspective=candidate, worker_id=response.worker_id, response=response)
                for candidate, response in new
            ]
        )
    return CollectReport(len(new), short, copies, duplicates)
