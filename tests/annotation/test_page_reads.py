"""The worker pages' written-out reads (annotation/work/rows.py) give the objects the ORM gives, and
nothing they read is kept between requests: a job paused, a worker blocked or a quiz failed after one
page is seen on the next. Market pages carry a page token instead of a CSRF token (in-house pages keep
theirs: tests/annotation/test_market_pages.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.db import models, transaction
from django.db.models import Q
from django.test import Client
from django.utils import timezone

from annotation.models import Assignment, AssignmentState, Hit, Item, Job, JobState, Qualification, Worker
from annotation.work import rows
from annotation.work.assignments import get_worker, next_assignment
from annotation.work.quiz import grade_quiz
from tests.annotation.test_market_pages import (
    PROLIFIC,
    answers_for,
    market_job,
    quiz_answers,
    reach_the_task,
    token_of,
    url,
)

pytestmark = pytest.mark.django_db


def as_orm(instance: models.Model) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def started_assignment() -> Assignment:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    Job.objects.filter(pk=job.pk).update(params={"completion_code": "C0DE1234", "nested": {"a": [1, 2]}},
                                         reward=Decimal("0.35"))  # fmt: skip
    job.refresh_from_db()
    worker = get_worker("prolific", "p-1")
    grade_quiz(worker, job, quiz_answers())
    return next_assignment(job, worker)


def test_the_written_out_reads_build_what_the_orm_builds() -> None:
    assignment = started_assignment()
    orm = Assignment.objects.select_related("job", "hit", "worker").get(pk=assignment.pk)

    read = rows.assignment(assignment.pk)

    assert read is not None
    assert as_orm(read) == as_orm(orm) and as_orm(read.job) == as_orm(orm.job)
    assert as_orm(read.hit) == as_orm(orm.hit) and as_orm(read.worker) == as_orm(orm.worker)
    assert read.job.params["nested"] == {"a": [1, 2]} and read.job.reward == Decimal("0.35")
    assert as_orm(rows.job(orm.job_id)) == as_orm(Job.objects.get(pk=orm.job_id))  # type: ignore[arg-type]
    items = rows.hit_items(orm.hit_id, orm.job)
    assert [as_orm(item) for item in items] == [as_orm(item) for item in orm.hit.ordered_items()]
    assert rows.hit_item_ids(orm.hit_id) == [item.pk for item in items]
    assert all(item.job is orm.job for item in items)
    assert rows.job(orm.job_id + 1000) is None and rows.assignment(orm.pk + 1000) is None


def test_a_worker_is_read_with_their_qualification_for_the_task_type_only() -> None:
    assert rows.worker_and_qualification("prolific", "nobody", "stance") is None
    worker = get_worker("prolific", "p-2")
    assert rows.worker_and_qualification("prolific", "p-2", "stance") == (worker, None)
    passed = Qualification.objects.create(worker=worker, task_type="stance", passed=True, score=1.0)
    Qualification.objects.create(worker=worker, task_type="other", passed=False, score=0.0)

    read = rows.worker_and_qualification("prolific", "p-2", "stance")

    assert read is not None and as_orm(read[0]) == as_orm(worker)
    assert read[1] is not None and as_orm(read[1]) == as_orm(passed) and read[1].worker is read[0]
    assert rows.worker_and_qualification("prolific", "p-2", "none-such") == (worker, None)


def test_select_lock_and_update_write_what_the_orm_would() -> None:
    assignment = started_assignment()
    now = timezone.now()
    with transaction.atomic():
        assert rows.lock(Worker, assignment.worker_id) and not rows.lock(Worker, assignment.worker_id + 1000)
        (locked,) = rows.select(Assignment, {"id": assignment.pk}, lock=True)
        locked.state, locked.submitted_at, locked.work_seconds = "submitted", now, 12.5
        rows.update(locked, ["state", "submitted_at", "work_seconds"])

    stored = Assignment.objects.get(pk=assignment.pk)
    assert (stored.state, stored.submitted_at, stored.work_seconds) == ("submitted", now, 12.5)
    assert rows.select(Hit, {"id": assignment.hit_id}) == [Hit.objects.get(pk=assignment.hit_id)]
    assert rows.select(Item, {"id": -1}) == []


def test_select_takes_columns_and_values_and_reads_what_the_orm_reads() -> None:
    assignment = started_assignment()
    job, worker = assignment.job, assignment.worker
    Assignment.objects.filter(pk=assignment.pk).update(external_id="A-1")
    open_one = {"job": job.pk, "worker_id": worker.pk, "state": AssignmentState.ACCEPTED}  # name or attname

    either = rows.select(Assignment, open_one, {"job_id": job.pk, "external_id": "A-1"}, limit=3)
    orm = Assignment.objects.filter(Q(**open_one) | Q(job=job, external_id="A-1"))

    assert [as_orm(found) for found in either] == [as_orm(found) for found in orm] and len(either) == 1
    assert rows.select(Assignment, {"job_id": job.pk, "external_id": "A-2"}) == []
    assert len(rows.select(Item, {"job_id": job.pk}, limit=2)) == 2 < Item.objects.filter(job=job).count()
    with pytest.raises(ValueError, match="Assignment has no column id = 1 OR 1"):
        rows.select(Assignment, {"id = 1 OR 1": 1})  # a name is a field's, never SQL
    with pytest.raises(ValueError, match="at least one match"):
        rows.select(Assignment, {})
    with pytest.raises(ValueError, match="at least one match"):
        rows.select(Assignment)


def test_a_job_paused_after_its_page_gives_no_work_on_start(client: Client) -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    quiz = client.get(url("quiz", job.pk, PROLIFIC))
    client.post(url("quiz", job.pk, PROLIFIC), {**quiz_answers(), "page_token": token_of(quiz)})
    home = client.get(url("job", job.pk, PROLIFIC))
    Job.objects.filter(pk=job.pk).update(state=JobState.PAUSED)  # no save(), no signal

    started = client.post(url("start", job.pk, PROLIFIC), {"page_token": token_of(home)})

    assert started.status_code == 200 and b"not taking work" in started.content
    assert not Assignment.objects.exists()


def test_a_worker_blocked_or_unqualified_after_the_job_page_gets_no_work(client: Client) -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    quiz = client.get(url("quiz", job.pk, PROLIFIC))
    client.post(url("quiz", job.pk, PROLIFIC), {**quiz_answers(), "page_token": token_of(quiz)})
    home = client.get(url("job", job.pk, PROLIFIC))
    Qualification.objects.update(passed=False, score=0.25)

    unqualified = client.post(url("start", job.pk, PROLIFIC), {"page_token": token_of(home)})
    Qualification.objects.update(passed=True, score=1.0)
    Worker.objects.update(blocked=True)
    blocked = client.post(url("start", job.pk, PROLIFIC), {"page_token": token_of(home)})

    assert unqualified.status_code == 403 and b"did not pass" in unqualified.content
    assert blocked.status_code == 200 and b"can no longer take work" in blocked.content
    assert not Assignment.objects.exists()


def test_a_market_page_carries_its_page_token_and_no_csrf_token_or_cookie(client: Client) -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    task_url = reach_the_task(client, job, PROLIFIC)
    pages = [client.get(url("job", job.pk, PROLIFIC)), client.get(task_url)]

    for page in pages:
        assert b'name="page_token"' in page.content
        assert b"csrfmiddlewaretoken" not in page.content and "csrftoken" not in page.cookies
    done = client.post(task_url, {**answers_for(Assignment.objects.get()), "page_token": token_of(pages[1])})
    assert done.status_code == 302
