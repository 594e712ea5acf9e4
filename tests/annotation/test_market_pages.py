"""Worker pages for market workers: page tokens on every page, required on every POST; MTurk hand-off."""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.market_interface.registry import market_ids
from annotation.markets.mturk.identity import PREVIEW_ASSIGNMENT
from annotation.models import Assignment, Job, JobState, Qualification, Response, Worker
from annotation.task_types import get_task_type
from annotation.web.page_tokens import issue_token
from annotation.work.assignments import items_of
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

HIT_ID = "3AQN9REUTFGXCRWFMS2HA7Y9KHNDYV"
MTURK = {
    "assignmentId": "3PWWM24LHSX369EBUXKO681UQPO82A",
    "hitId": HIT_ID,
    "workerId": "A2Z8QB6XQFTQ1D",
    "turkSubmitTo": "https://workersandbox.mturk.com",
}
PROLIFIC = {
    "PROLIFIC_PID": "60bf9310e8dec401be6e9615",
    "STUDY_ID": "60f6acb180a7b59ac0621f9e",
    "SESSION_ID": "60d9aadeb86739de712faee0",
}
TOKEN = re.compile(rb'name="page_token" value="([^"]+)"')


def market_job(market: str, external_id: str, perspectives: int = 2) -> Job:
    """A published market job over one HIT, as if the market had been told (no market needed)."""
    make_corpus(claims=2, perspectives=perspectives)
    job = create_job("stance", {}, market=market, params={"completion_code": "C0DE1234"})
    Job.objects.filter(pk=job.pk).update(state=JobState.PUBLISHED, published_at=timezone.now())
    job.hits.update(external_id=external_id)
    return Job.objects.get(pk=job.pk)


def url(name: str, pk: int, params: dict[str, str]) -> str:
    return reverse(f"annotation:{name}", args=[pk]) + "?" + urlencode(params)


def token_of(response: Any) -> str:
    found = TOKEN.search(response.content)
    assert found, "the page carries no page token"
    return found.group(1).decode()


def quiz_answers() -> dict[str, str]:
    return {q.key: q.answer for q in get_task_type("stance").quiz}


def reach_the_task(client: Client, job: Job, params: dict[str, str]) -> str:
    """Instructions → quiz → start, each POST with the token of the page it came from; the task URL."""
    quiz_page = client.get(url("quiz", job.pk, params))
    passed = client.post(url("quiz", job.pk, params), {**quiz_answers(), "page_token": token_of(quiz_page)})
    assert passed.status_code == 302
    home = client.get(passed["Location"])
    started = client.post(url("start", job.pk, params), {"page_token": token_of(home)})
    assert started.status_code == 302
    return str(started["Location"])


def answers_for(assignment: Assignment, label: str = "UNDERMINE") -> dict[str, str]:
    return {f"item-{item.pk}": label for item in items_of(assignment)}


def test_mturk_preview_writes_nothing_and_may_be_framed_by_mturk(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    params = {"assignmentId": PREVIEW_ASSIGNMENT, "hitId": HIT_ID}

    response = client.get(url("job", job.pk, params))

    assert response.status_code == 200 and b"Nothing you do here is saved" in response.content
    assert b"page_token" not in response.content
    assert "https://worker.mturk.com" in response["Content-Security-Policy"]
    assert "X-Frame-Options" not in response
    assert not Worker.objects.exists() and not Qualification.objects.exists()


def test_an_mturk_worker_saves_first_then_posts_the_assignment_to_mturk(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    task_url = reach_the_task(client, job, MTURK)
    page = client.get(task_url)
    assignment = Assignment.objects.get()

    done = client.post(task_url, {**answers_for(assignment), "page_token": token_of(page)})

    assert done.status_code == 200
    assert b'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in done.content
    assert f'name="assignmentId" value="{MTURK["assignmentId"]}"'.encode() in done.content
    assert b'getElementById("market-submit").submit()' in done.content
    assert (assignment.external_id, assignment.hit.external_id) == (MTURK["assignmentId"], HIT_ID)
    assert Assignment.objects.get().state == "submitted"
    assert Response.objects.count() == 4


def test_a_prolific_participant_is_sent_to_the_completion_url_after_saving(client: Client) -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    task_url = reach_the_task(client, job, PROLIFIC)
    page = client.get(task_url)
    assignment = Assignment.objects.get()

    done = client.post(task_url, {**answers_for(assignment), "page_token": token_of(page)})

    assert done.status_code == 302
    assert done["Location"] == "https://app.prolific.com/submissions/complete?cc=C0DE1234"
    assert assignment.external_id == PROLIFIC["SESSION_ID"]
    assert Response.objects.count() == 4


def test_a_submission_without_a_page_token_saves_nothing(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    task_url = reach_the_task(client, job, MTURK)
    assignment = Assignment.objects.get()

    refused = client.post(task_url, answers_for(assignment))

    assert refused.status_code == 403 and b"Nothing was saved" in refused.content
    assert not Response.objects.exists()


def test_a_forged_page_token_saves_nothing(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    task_url = reach_the_task(client, job, MTURK)
    token = token_of(client.get(task_url))
    body, _, signature = token.rpartition(":")

    refused = client.post(
        task_url, {**answers_for(Assignment.objects.get()), "page_token": f"{body}:x{signature}"}
    )

    assert refused.status_code == 403
    assert not Response.objects.exists()


def test_an_expired_page_token_saves_nothing(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    task_url = reach_the_task(client, job, MTURK)
    assignment = Assignment.objects.get()
    ids = market_ids(MTURK)
    assert ids is not None
    items = [item.pk for item in items_of(assignment)]
    old = issue_token(ids, job.pk, items, now=time.time() - 5 * 60 * 60)

    refused = client.post(task_url, {**answers_for(assignment), "page_token": old})

    assert refused.status_code == 403 and b"too old" in refused.content
    assert not Response.objects.exists()


def test_a_token_replayed_by_another_worker_saves_nothing(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    job.hits.update(assignments_wanted=2)
    first_url = reach_the_task(client, job, MTURK)
    stolen = token_of(client.get(first_url))
    other = {**MTURK, "workerId": "AOTHERWORKER01", "assignmentId": "3OTHERASSIGNMENT00000000000000"}
    other_url = reach_the_task(Client(), job, other)
    theirs = Assignment.objects.get(external_id=other["assignmentId"])

    refused = Client().post(other_url, {**answers_for(theirs), "page_token": stolen})

    assert refused.status_code == 403 and b"another worker" in refused.content
    assert not Response.objects.exists()


def test_a_token_replayed_after_submitting_changes_nothing(client: Client) -> None:
    job = market_job("mturk", HIT_ID)
    task_url = reach_the_task(client, job, MTURK)
    token = token_of(client.get(task_url))
    assignment = Assignment.objects.get()
    client.post(task_url, {**answers_for(assignment, "UNDERMINE"), "page_token": token})

    again = client.post(task_url, {**answers_for(assignment, "SUPPORT"), "page_token": token})

    assert again.status_code == 200 and b"externalSubmit" in again.content
    assert set(Response.objects.values_list("label", flat=True)) == {"UNDERMINE"}


def test_a_turk_submit_to_off_the_allowlist_is_refused_and_writes_nothing(client: Client) -> None:
    job = market_job("mturk", HIT_ID)

    response = client.get(url("job", job.pk, {**MTURK, "turkSubmitTo": "https://evil.example"}))

    assert response.status_code == 400
    assert not Worker.objects.exists()


def test_an_mturk_worker_with_a_hit_of_another_job_is_refused_before_anything_is_written(
    client: Client,
) -> None:
    job = market_job("mturk", HIT_ID)
    params = {**MTURK, "hitId": "3SOMEOTHERHIT0000000000000000"}

    home = client.get(url("job", job.pk, params))
    started = client.post(url("start", job.pk, params), {"page_token": "forged"})

    assert home.status_code == started.status_code == 403
    assert b"another study or HIT" in home.content
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_in_house_annotators_keep_the_csrf_check_and_are_never_framed() -> None:
    make_corpus(claims=1, perspectives=2)
    job = publish_job(create_job("stance", {}).pk)
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user("ann", password="pw-for-tests-1"))

    page = client.get(reverse("annotation:quiz", args=[job.pk]))
    forged = client.post(reverse("annotation:quiz", args=[job.pk]), quiz_answers())

    assert page["X-Frame-Options"] == "DENY"
    assert b"csrfmiddlewaretoken" in page.content and b'name="page_token"' not in page.content
    assert forged.status_code == 403
    assert not Qualification.objects.exists()
