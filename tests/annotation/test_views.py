from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Qualification, Response, Worker
from annotation.task_types import get_task_type
from annotation.work.assignments import get_worker, items_of, next_assignment
from annotation.work.jobs import create_job, publish_job
from annotation.work.quiz import grade_quiz
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def job():
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="inhouse")
    return publish_job(job.pk)


@pytest.fixture
def annotator(client: Client) -> Client:
    client.force_login(User.objects.create_user("ann", password="pw-for-tests-1"))
    return client


def quiz_answers(right: bool = True) -> dict[str, str]:
    return {q.key: q.answer if right else "MILDLY_SUPPORT" for q in get_task_type("stance").quiz}


def test_preview_writes_nothing(previewer: Client, job) -> None:
    response = previewer.get(reverse("annotation:job", args=[job.pk]) + "?preview=1")

    assert response.status_code == 200
    assert b"Nothing you do here is saved" in response.content
    assert b"Claim number" in response.content
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_in_house_pages_ask_for_a_login(client: Client, job) -> None:
    response = client.get(reverse("annotation:job", args=[job.pk]))

    assert response.status_code == 302 and "/annotate/login/" in response["Location"]


def test_instructions_lead_to_the_quiz_then_the_task(annotator: Client, job) -> None:
    home = annotator.get(reverse("annotation:job", args=[job.pk]))
    assert b"Take the qualification quiz" in home.content

    passed = annotator.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers())
    assert passed.status_code == 302
    started = annotator.post(reverse("annotation:start", args=[job.pk]))
    page = annotator.get(started["Location"])

    assert page.status_code == 200 and page.content.count(b'class="item"') == 4
    assert Qualification.objects.get().passed


def test_the_annotator_is_told_the_quizs_attempts_and_pass_mark_before_taking_it(
    annotator: Client, job
) -> None:
    home = annotator.get(reverse("annotation:job", args=[job.pk])).content.decode()
    quiz = annotator.get(reverse("annotation:quiz", args=[job.pk])).content.decode()

    for page in (home, quiz):
        assert "You have one attempt; you pass with 75% of the answers right or more." in page


def test_failing_the_quiz_shows_a_clear_message_and_no_work(annotator: Client, job) -> None:
    failed = annotator.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers(right=False))
    started = annotator.post(reverse("annotation:start", args=[job.pk]))

    assert failed.status_code == 403 and b"cannot offer you this work" in failed.content
    assert started.status_code == 403 and b"did not pass" in started.content
    assert not Assignment.objects.exists()


def test_the_quiz_answered_again_after_the_last_attempt_changes_nothing(annotator: Client, job) -> None:
    annotator.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers(right=False))
    again = annotator.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers())
    page = annotator.get(reverse("annotation:quiz", args=[job.pk]))

    assert again.status_code == 403 and b"cannot offer you this work" in again.content
    assert Qualification.objects.values_list("passed", "attempts").get() == (False, 1)
    assert page.status_code == 302 and page["Location"] == reverse("annotation:job", args=[job.pk])


def test_submitting_twice_stores_one_response_per_item(annotator: Client, job) -> None:
    annotator.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers())
    url = annotator.post(reverse("annotation:start", args=[job.pk]))["Location"]
    assignment = Assignment.objects.get()
    data = {f"item-{item.pk}": "UNDERMINE" for item in items_of(assignment)}

    first = annotator.post(url, data)
    second = annotator.post(url, data)

    assert first.status_code == second.status_code == 200
    assert Response.objects.count() == 4
    assert b"your answers are saved" in second.content


def test_an_incomplete_submission_is_shown_again_with_errors(annotator: Client, job) -> None:
    annotator.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers())
    url = annotator.post(reverse("annotation:start", args=[job.pk]))["Location"]

    response = annotator.post(url, {})

    assert response.status_code == 200 and b"Please answer every item" in response.content
    assert not Response.objects.exists()


def test_another_workers_assignment_is_not_found(annotator: Client, job) -> None:
    other = get_worker("inhouse", "someone-else")
    grade_quiz(other, job, quiz_answers())
    assignment = next_assignment(job, other)

    assert annotator.get(reverse("annotation:assignment", args=[assignment.pk])).status_code == 404


@pytest.mark.parametrize("slug", ["paraphrase_writing", "evidence_verification", "topic_tagging"])
def test_every_task_type_template_renders_its_preview(previewer: Client, slug: str) -> None:
    from corpus.models import ClusterEvidence, Evidence, PerspectiveCluster

    make_corpus(claims=1, perspectives=2)
    evidence = Evidence.objects.create(eid=1, text="A paragraph of evidence.")
    ClusterEvidence.objects.create(cluster=PerspectiveCluster.objects.first(), evidence=evidence, position=0)
    job = create_job(slug, {})

    response = previewer.get(reverse("annotation:job", args=[job.pk]) + "?preview=1")

    assert response.status_code == 200 and b'class="item"' in response.content
