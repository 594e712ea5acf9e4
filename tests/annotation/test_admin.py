"""The annotation admin: jobs with progress, pause / cancel, workers blocked; pages render."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client, TestCase
from django.test.utils import CaptureQueriesContext

from annotation.models import Job, JobState, Worker
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer
from annotation.work.assignments import get_worker, items_of, next_assignment
from annotation.work.jobs import create_job, publish_job
from annotation.work.quiz import grade_quiz
from annotation.work.submitting import submit_assignment
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    return client


@pytest.fixture
def job() -> Job:
    make_corpus(claims=3)
    job = create_job("stance", {}, market="inhouse")
    return publish_job(job.pk)


def act(staff: Client, url: str, action: str, pks: list[int]) -> None:
    # Actions that reach a market start an operation a worker runs once the request commits.
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = staff.post(url, {"action": action, "_selected_action": pks}, follow=True)
    assert response.status_code == 200


def test_staff_pause_then_cancel_a_job(staff: Client, job: Job) -> None:
    act(staff, "/admin/annotation/job/", "pause", [job.pk])
    job.refresh_from_db()
    assert job.state == JobState.PAUSED

    act(staff, "/admin/annotation/job/", "cancel", [job.pk])
    job.refresh_from_db()
    assert job.state == JobState.CANCELLED


def test_staff_block_a_worker(staff: Client) -> None:
    worker = Worker.objects.create(market="inhouse", external_id="annotator-7")
    act(staff, "/admin/annotation/worker/", "block", [worker.pk])
    worker.refresh_from_db()
    assert worker.blocked


@pytest.mark.parametrize("page", ["job", "hit", "assignment", "response", "worker"])
def test_list_and_change_pages_render(staff: Client, job: Job, page: str) -> None:
    assert staff.get(f"/admin/annotation/{page}/").status_code == 200
    assert staff.get(f"/admin/annotation/job/{job.pk}/change/").status_code == 200


def test_the_item_list_counts_each_items_responses_without_a_query_per_item(staff: Client, job: Job) -> None:
    worker = get_worker("inhouse", "annotator-1")
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type(job.task_type).quiz})
    assignment = next_assignment(job, worker)
    answered = items_of(assignment)
    submit_assignment(assignment.pk, {item.pk: Answer(label="SUPPORT") for item in answered})

    with CaptureQueriesContext(connection) as queries:
        page = staff.get("/admin/annotation/item/").content.decode()

    assert page.count('<td class="field-responses_count">1</td>') == len(answered)
    assert page.count('<td class="field-responses_count">0</td>') == job.items.count() - len(answered)
    per_item = [q for q in queries.captured_queries if '"annotation_response"."item_id" =' in q["sql"]]
    assert per_item == []
