"""The load benchmark's database side, run in the served app's environment:

    python -m bench._load_site seed CLAIMS WORKERS_PER_ITEM   # a published Prolific job; prints JSON
    python -m bench._load_site check JOB                      # what the crowd left; prints JSON

The job is published as if Prolific had been told (no market is reached): its one study id is what
the load's simulated participants bring in their URLs.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from typing import Any

import django
from django.db.models import Count, F, Q, QuerySet

STUDY_ID = "60f6acb180a7b59ac0621f9e"


def seed(claims: int, workers_per_item: int) -> dict[str, Any]:
    from django.utils import timezone

    from annotation.models import Job, JobState
    from annotation.task_types import get_task_type
    from annotation.work.jobs import create_job

    make_corpus(claims=claims, perspectives=5)
    params = {"workers_per_item": workers_per_item, "completion_code": "C0DE1234"}
    job = create_job("stance", {}, market="prolific", params=params)
    Job.objects.filter(pk=job.pk).update(state=JobState.PUBLISHED, published_at=timezone.now())
    job.hits.update(external_id=STUDY_ID)
    quiz = {question.key: question.answer for question in get_task_type("stance").quiz}
    return {
        "job": job.pk,
        "study": STUDY_ID,
        "quiz": quiz,
        "assignments": job.hits.count() * workers_per_item,
    }


def make_corpus(claims: int, perspectives: int) -> None:
    """`claims` candidate claims with `perspectives` one-member clusters each, stances known. Each level
    seeds its own job in a new process, so ids number on from what the database holds."""
    from corpus.models import Claim, Perspective
    from rigs.corpus import STANCES, one_member_cluster

    claims_before = Claim.objects.count()
    perspective_numbers = itertools.count(Perspective.objects.count())
    for n in range(claims_before, claims_before + claims):
        claim = Claim.objects.create(cid=n + 1, text=f"Claim number {n} should be debated", source="idebate")
        for position in range(perspectives):
            k = next(perspective_numbers)
            perspective = Perspective.objects.create(
                pid=k + 1, text=f"Perspective number {k} gives a reason", source="idebate"
            )
            one_member_cluster(claim, position, STANCES[position % len(STANCES)], perspective)


def check(job_pk: int) -> dict[str, int]:
    """Counts that must hold after any crowd, however parallel: each `duplicate_*`, `incomplete_*` and
    `over_*` is 0 when the work is sound."""
    from annotation.models import Assignment, AssignmentState, Hit, Response

    assignments = Assignment.objects.filter(job_id=job_pk)
    hits = Hit.objects.filter(job_id=job_pk)
    items_per_hit = dict(hits.annotate(n=Count("items")).values_list("pk", "n"))
    answered = assignments.filter(state__in=AssignmentState.done()).annotate(n=Count("responses"))
    # A HIT's slots: open assignments, and finished ones the market confirmed (Prolific's submitted but
    # unconfirmed work holds none, as in annotation.work.assignments).
    holding = Q(assignments__state=AssignmentState.ACCEPTED) | Q(
        assignments__state__in=AssignmentState.holding(), assignments__confirmed=True
    )
    taken = hits.annotate(n=Count("assignments", filter=holding))
    return {
        "assignments": assignments.count(),
        "submitted": answered.count(),
        "open": assignments.filter(state=AssignmentState.ACCEPTED).count(),
        # Two assignments of one HIT to one participant, or two of one Prolific session.
        "duplicate_hit_worker": _duplicates(assignments, "hit_id", "worker_id"),
        "duplicate_session": _duplicates(assignments.exclude(external_id=""), "external_id"),
        # Two responses to an item from one worker, or a submitted assignment not answered whole.
        "duplicate_responses": _duplicates(Response.objects.filter(job_id=job_pk), "item_id", "worker_id"),
        "incomplete_submissions": sum(
            1 for hit, n in answered.values_list("hit_id", "n") if n != items_per_hit[hit]
        ),
        "over_assigned_hits": taken.filter(n__gt=F("assignments_wanted")).count(),
    }


def _duplicates(rows: QuerySet[Any], *fields: str) -> int:
    return rows.values(*fields).annotate(n=Count("pk")).filter(n__gt=1).count()


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    command, *args = argv
    result = seed(int(args[0]), int(args[1])) if command == "seed" else check(int(args[0]))
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
