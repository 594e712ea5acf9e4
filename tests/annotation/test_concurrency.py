"""The distinct-worker rule and HIT slots under concurrent requests, on real PostgreSQL connections."""

from __future__ import annotations

import pytest

from annotation.models import Assignment, WorkerItem
from annotation.task_types import get_task_type
from annotation.work.assignments import get_worker, items_of, next_assignment
from annotation.work.jobs import create_job, publish_job
from annotation.work.quiz import grade_quiz
from annotation.work.submitting import submit_assignment
from corpus.models import Status
from tests.annotation.factories import make_corpus
from tests.races import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_one_worker_racing_for_hits_that_share_gold_never_gets_an_item_twice() -> None:
    make_corpus(claims=8, perspectives=1)
    make_corpus(claims=1, perspectives=1, status=Status.ADJUDICATED)
    job = create_job(
        "stance",
        {"status": "candidate", "gold": {"status": "adjudicated"}},
        params={"groups_per_hit": 1, "gold_per_hit": 1},
    )
    publish_job(job.pk)
    worker = get_worker("inhouse", "racer")
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type("stance").quiz})

    errors = race(8, lambda n: next_assignment(job, worker))

    assert errors == []
    # Every HIT holds the one gold item, so exactly one HIT can be the worker's.
    assert Assignment.objects.filter(worker=worker).count() == 1
    items = list(WorkerItem.objects.filter(worker=worker).values_list("item_id", flat=True))
    assert len(items) == len(set(items)) == 2


def test_many_workers_racing_for_one_hit_fill_exactly_its_slots() -> None:
    make_corpus(claims=1, perspectives=2)
    job = create_job("stance", {}, params={"workers_per_item": 3})
    publish_job(job.pk)
    workers = [get_worker("inhouse", f"w{n}") for n in range(10)]
    for worker in workers:
        grade_quiz(worker, job, {q.key: q.answer for q in get_task_type("stance").quiz})

    errors = race(10, lambda n: next_assignment(job, workers[n]))

    assert errors == []
    assert Assignment.objects.filter(job=job).count() == 3


def test_a_double_submit_racing_stores_one_response_per_item() -> None:
    make_corpus(claims=1, perspectives=3)
    job = create_job("stance", {})
    publish_job(job.pk)
    worker = get_worker("inhouse", "w")
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type("stance").quiz})
    assignment = next_assignment(job, worker)
    from annotation.task_types.base import Answer

    answers = {item.pk: Answer(label="SUPPORT") for item in items_of(assignment)}

    errors = race(4, lambda n: submit_assignment(assignment.pk, answers))

    assert errors == []
    assert assignment.responses.count() == 3
