"""A hostile worker at the task pages: made-up ids, somebody else's ids, another study's ids.

Market identity is confirmed, not asserted: a (worker, HIT, assignment) is bound on first sight,
and work counts toward slots, completion and aggregation only once the market confirms it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from annotation.ledger.models import IssueKind, ReconciliationIssue
from annotation.ledger.reconcile import reconcile_job
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, AssignmentState, Job, JobState, Response, Worker
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.records import long_format, review_assignment
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk, GuardedProlific
from tests.annotation.market_clients import market_clients
from tests.annotation.test_market_pages import answers_for, reach_the_task, token_of, url

pytestmark = pytest.mark.django_db(transaction=True)
SANDBOX = "https://workersandbox.mturk.com"


@pytest.fixture
def prolific(settings: Any) -> Iterator[FakeProlific]:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    settings.PROLIFIC_PROJECT_ID, settings.PROLIFIC_WORKSPACE_ID = (
        FakeProlific.PROJECT,
        FakeProlific.WORKSPACE,
    )
    market = GuardedProlific(Guard())
    with market_clients(prolific=market.client(attempts=1)):
        yield market


def published(market: str, **params: Any) -> Job:
    make_corpus(claims=2, perspectives=2)
    return publish_job(create_job("stance", {}, market=market, params=params).pk)


def mturk_params(job: Job, n: int, *, worker: str = "") -> dict[str, str]:
    return {
        "assignmentId": f"3ASG{n:026d}",
        "hitId": job.hits.get().external_id,
        "workerId": worker or f"AWORKER{n:07d}",
        "turkSubmitTo": SANDBOX,
    }


def do_the_hit(job: Job, params: dict[str, str], client: Client | None = None) -> Any:
    """Through our pages, token by token; returns the response to the submission."""
    client = client or Client()
    task_url = reach_the_task(client, job, params)
    token = token_of(client.get(task_url))
    assignment = Assignment.objects.get(pk=int(task_url.split("/")[-2]))
    return client.post(task_url, {**answers_for(assignment), "page_token": token})


def test_another_assignment_id_never_takes_over_an_open_assignment(fake_mturk: GuardedMTurk) -> None:
    job = published("mturk")
    victim = mturk_params(job, 1)
    victim_client = Client()
    victim_task = reach_the_task(victim_client, job, victim)
    attacker = {**victim, "assignmentId": "3MADEUP" + "0" * 23}

    attacker_client = Client()
    home = attacker_client.get(url("job", job.pk, attacker))
    started = attacker_client.post(url("start", job.pk, attacker), {"page_token": token_of(home)})

    assert started.status_code == 403
    assert list(Assignment.objects.values_list("external_id", flat=True)) == [victim["assignmentId"]]
    token = token_of(victim_client.get(victim_task))
    assignment = Assignment.objects.get()
    done = victim_client.post(victim_task, {**answers_for(assignment), "page_token": token})
    assert done.status_code == 200 and Assignment.objects.get().state == AssignmentState.SUBMITTED


def test_made_up_workers_neither_fill_a_hit_nor_complete_the_job(fake_mturk: GuardedMTurk) -> None:
    job = published("mturk")  # one HIT, three workers wanted
    for n in range(3):
        do_the_hit(job, mturk_params(job, n))

    assert Job.objects.get(pk=job.pk).state != JobState.COMPLETE
    real = mturk_params(job, 7)
    do_the_hit(job, real)
    fake_mturk.submit(real["hitId"], real["assignmentId"], real["workerId"])
    sync_job(job.pk)

    confirmed = Assignment.objects.filter(confirmed=True)
    assert list(confirmed.values_list("external_id", flat=True)) == [real["assignmentId"]]
    counted = {worker for _, worker, _ in long_format(job)}
    assert counted == {Worker.objects.get(external_id=real["workerId"]).pk}
    assert Job.objects.get(pk=job.pk).state != JobState.COMPLETE


def test_reconciliation_reports_work_the_market_does_not_know(fake_mturk: GuardedMTurk) -> None:
    job = published("mturk")
    made_up = mturk_params(job, 1)
    do_the_hit(job, made_up)

    reconcile_job(job.pk)

    unknown = ReconciliationIssue.objects.get(kind=IssueKind.UNKNOWN)
    assert unknown.ref == made_up["assignmentId"]


def test_a_prolific_study_id_of_another_study_is_refused(prolific: FakeProlific) -> None:
    job = published("prolific", completion_code="C0DE1234")
    other = {"PROLIFIC_PID": "60bf9310e8dec401be6e9615", "STUDY_ID": "f" * 24, "SESSION_ID": "a" * 24}

    page = Client().get(url("job", job.pk, other))

    assert page.status_code == 403
    assert not Worker.objects.exists()


def test_a_prolific_session_is_accepted_once(prolific: FakeProlific) -> None:
    job = published("prolific", completion_code="C0DE1234")
    study = job.hits.first().external_id
    first = {"PROLIFIC_PID": "1" * 24, "STUDY_ID": study, "SESSION_ID": "5" * 24}
    replay = {**first, "PROLIFIC_PID": "2" * 24}
    do_the_hit(job, first)

    client = Client()
    quiz = client.get(url("quiz", job.pk, replay))
    client.post(url("quiz", job.pk, replay), {"page_token": token_of(quiz), **quiz_answers()})
    home = client.get(url("job", job.pk, replay))
    started = client.post(url("start", job.pk, replay), {"page_token": token_of(home)})

    assert started.status_code == 403
    assert Assignment.objects.count() == 1


def quiz_answers() -> dict[str, str]:
    from tests.annotation.test_market_pages import quiz_answers as answers

    return answers()


@pytest.mark.parametrize("name", ["workerId", "assignmentId", "hitId"])
@pytest.mark.parametrize("bad", ["A\x00B", "A" * 129, "a;DROP"])
def test_nul_over_long_and_off_alphabet_mturk_ids_get_400_and_write_nothing(
    fake_mturk: GuardedMTurk, name: str, bad: str
) -> None:
    job = published("mturk")
    params = {**mturk_params(job, 1), name: bad}

    page = Client().get(url("job", job.pk, params))
    started = Client().post(url("start", job.pk, params), {"page_token": "x"})

    assert page.status_code == started.status_code == 400
    assert not Worker.objects.exists() and not Assignment.objects.exists()


@pytest.mark.parametrize("bad", ["A\x00B", "A" * 129, "<script>"])
def test_nul_over_long_and_off_alphabet_prolific_ids_get_400(prolific: FakeProlific, bad: str) -> None:
    job = published("prolific", completion_code="C0DE1234")
    params = {"PROLIFIC_PID": bad, "STUDY_ID": job.hits.first().external_id, "SESSION_ID": "5" * 24}

    assert Client().get(url("job", job.pk, params)).status_code == 400
    assert not Worker.objects.exists()


def test_an_in_house_page_keeps_its_csrf_check_and_denies_framing_with_a_market_parameter() -> None:
    job = published("inhouse")
    user = User.objects.create_user("annotator", password="pw-for-tests-only")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    page = client.get(url("job", job.pk, {"workerId": "x"}))
    forged = client.post(url("start", job.pk, {"workerId": "x"}), {})

    assert forged.status_code == 403
    assert page["X-Frame-Options"] == "DENY"
    assert not Assignment.objects.exists()


def test_a_rejected_assignments_labels_do_not_count() -> None:
    job = published("simulated")
    sync_job(job.pk)
    rejected = Assignment.objects.filter(job=job).first()
    review_assignment(rejected.pk, approve=False, feedback="Answers were random.")

    counted = {(item, worker) for item, worker, _ in long_format(job)}
    theirs = set(Response.objects.filter(assignment=rejected).values_list("item_id", "worker_id"))
    assert theirs and not (theirs & counted)
