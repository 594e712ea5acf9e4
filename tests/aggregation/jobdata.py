"""Jobs with chosen answers: the responses a test needs, written as a crowd would leave them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.utils import timezone

from annotation.models import Assignment, AssignmentState, Job, Response, Worker
from annotation.work.jobs import create_job
from corpus.models import Claim


def stance_job(claims: Sequence[Claim], **params: object) -> Job:
    return create_job("stance", {"claims": [c.cid for c in claims]}, params=dict(params))


def worker(name: str) -> Worker:
    return Worker.objects.get_or_create(market="inhouse", external_id=name)[0]


def answer(job: Job, votes: Mapping[str, Sequence[str]], *, prefix: str = "w") -> None:
    """Worker ``{prefix}{i}`` gives ``labels[i]`` to the item keyed ``key``, for every key in ``votes``."""
    now = timezone.now()
    for key, labels in votes.items():
        item = job.items.get(key=key)
        hit = item.hits.get()
        for index, label in enumerate(labels):
            person = worker(f"{prefix}{index}")
            assignment, _ = Assignment.objects.get_or_create(
                job=job,
                hit=hit,
                worker=person,
                defaults={"accepted_at": now, "state": AssignmentState.SUBMITTED, "submitted_at": now},
            )
            Response.objects.create(
                job=job,
                item=item,
                worker=person,
                assignment=assignment,
                label=label,
                value=label.split(",") if job.task_type == "topic_tagging" else None,
                is_gold=item.is_gold,
                created=now,
            )


def keys(job: Job) -> list[str]:
    return list(job.items.order_by("pk").values_list("key", flat=True))
