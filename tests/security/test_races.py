"""At most once, enforced by the database: parallel starts and concurrent extends on PostgreSQL."""

from __future__ import annotations

import pytest

from annotation.ledger.engine import InFlightError
from annotation.models import Assignment, AssignmentState, Job
from annotation.task_types import get_task_type
from annotation.work.assignments import get_worker, next_assignment
from annotation.work.jobs import create_job, publish_job
from annotation.work.market import extend_job
from annotation.work.quiz import grade_quiz
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import GuardedMTurk
from tests.races import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROUNDS, PARALLEL = 20, 20


def test_twenty_parallel_starts_give_one_open_assignment_every_round() -> None:
    make_corpus(claims=40, perspectives=1)
    job = publish_job(create_job("stance", {}, params={"groups_per_hit": 1}).pk)
    answers = {q.key: q.answer for q in get_task_type("stance").quiz}
    open_counts = []
    for round_ in range(ROUNDS):
        worker = get_worker("inhouse", f"user-{round_}")
        grade_quiz(worker, job, answers)

        errors = race(PARALLEL, lambda n, worker=worker: next_assignment(job, worker))

        assert errors == []
        open_counts.append(Assignment.objects.filter(worker=worker, state=AssignmentState.ACCEPTED).count())
    assert open_counts == [1] * ROUNDS


def test_concurrent_extends_add_each_increment_once_and_never_pass_the_cap(fake_mturk: GuardedMTurk) -> None:
    make_corpus(claims=2, perspectives=2)
    job = publish_job(create_job("stance", {}, market="mturk").pk)
    hit = job.hits.get()

    errors = race(8, lambda n: extend_job(job.pk, 2))

    hit.refresh_from_db()
    at_market = fake_mturk.hits[hit.external_id]["MaxAssignments"]
    # A thread that finds the same extension in flight is told so; none adds it a second time.
    assert all(isinstance(error, InFlightError) for error in errors), errors
    assert hit.assignments_wanted == at_market <= 9
    assert Job.objects.get(pk=job.pk).hits.get().assignments_wanted == at_market
