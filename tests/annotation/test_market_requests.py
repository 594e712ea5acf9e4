"""No market call inside a web request: the admin's and the API's actions on jobs and workers, and
the cost pages, answer at once with the market down or hanging; the work runs as an operation, which
fails with the market's message. Against FakeProlific (schema-checked, ledger-guarded)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import AuditEvent
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Job, JobState
from annotation.work.cost_checks import estimate_cost_locally
from annotation.work.jobs import create_job, publish_job
from annotation.work.records import block_worker, worker_pseudonym
from operations.models import Operation, OperationState
from operations.services import run_operation
from tests.annotation.factories import make_corpus
from tests.annotation.test_prolific_market import fake, published, submitted

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Operations queued for a worker instead of run in-process: what the broker would hold."""
    from operations.tasks import run_operation_task

    held: list[int] = []
    monkeypatch.setattr(run_operation_task, "delay_on_commit", held.append)
    return held


def _admin(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("boss", "boss@example.com", "pw"))
    return client


def _api(*roles: str) -> APIClient:
    user = User.objects.create_user(f"res{len(roles)}", password="x-unused-0", is_staff=True)
    user.groups.set(Group.objects.filter(name__in=["researcher", *roles]))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


@contextmanager
def requests_tried(fake: FakeProlific) -> Iterator[list[str]]:
    """Every request the client hands the fake market while the block runs, the market down,
    hanging or up: a request that never asks the market cannot wait on it."""
    tried: list[str] = []
    send = fake.send

    def recorded(request: Any, **kwargs: Any) -> Any:
        tried.append(f"{request.method} {request.url}")
        return send(request, **kwargs)

    fake.send = recorded  # type: ignore[method-assign]
    try:
        yield tried
    finally:
        fake.send = send  # type: ignore[method-assign]


def answered_at_once_then_failed(fake: FakeProlific, queued: list[int], request: Any) -> Operation:
    """The request answers without asking the market; the worker then runs the operation, which
    fails with the market's message (never a 500)."""
    with requests_tried(fake) as tried:
        response = request()
    assert response.status_code in (200, 202, 302), response.content[:300]
    assert tried == []  # the request itself asked the market nothing
    (operation_id,) = queued
    queued.clear()
    if response.status_code == 202:  # the API answers with the operation to follow
        assert response.json()["id"] == operation_id
    operation = run_operation(operation_id)  # as the Celery worker would: no crash
    assert operation.state == OperationState.FAILED
    assert "Prolific unreachable" in operation.error and "failed: Prolific unreachable" in operation.log
    return operation


@pytest.mark.parametrize("action", ["pause", "resume"])
def test_admin_and_api_pause_and_resume_answer_at_once_with_the_market_down(
    fake: FakeProlific, queued: list[int], client: Client, action: str
) -> None:
    job = published()
    if action == "resume":
        Job.objects.filter(pk=job.pk).update(state=JobState.PAUSED)
    fake.down = True
    admin = _admin(client)

    def from_admin() -> Any:
        body = {"action": action, "_selected_action": [job.pk], "index": 0}
        return admin.post("/admin/annotation/job/", body)

    api = _api()
    operations = [answered_at_once_then_failed(fake, queued, from_admin)]
    operations.append(
        answered_at_once_then_failed(fake, queued, lambda: api.post(f"/api/jobs/{job.pk}/{action}/"))
    )

    assert [o.kind for o in operations] == [f"annotation.{action}_jobs"] * 2
    job.refresh_from_db()
    # The job follows the market: paused, or resumed, only once the market has been.
    assert job.state == (JobState.PUBLISHED if action == "pause" else JobState.PAUSED)


@pytest.mark.parametrize("action", ["expire", "sync"])
def test_the_api_expires_and_syncs_a_job_at_once_with_the_market_down_and_the_operation_fails(
    fake: FakeProlific, queued: list[int], action: str
) -> None:
    job = published()
    fake.down = True
    api = _api("approver")  # expiring needs annotation.spend_money, as the admin action does

    operation = answered_at_once_then_failed(fake, queued, lambda: api.post(f"/api/jobs/{job.pk}/{action}/"))

    assert operation.kind == f"annotation.{action}_jobs" and operation.params == {"job_ids": [job.pk]}
    audited = AuditEvent.objects.filter(action="expired", target=f"job {job.pk}").exists()
    assert audited == (action == "expire")


@pytest.mark.parametrize("action", ["block", "unblock"])
def test_admin_and_api_block_and_unblock_answer_at_once_with_the_market_down(
    fake: FakeProlific, queued: list[int], client: Client, settings: Any, action: str
) -> None:
    settings.WORKER_PSEUDONYM_KEY = "market-tests-pseudonym-key-0123456789"
    worker = submitted(fake, published()).worker
    if action == "unblock":
        block_worker(worker.pk, "copied answers")
    fake.down = True
    admin, api, name = _admin(client), _api(), worker_pseudonym(worker)

    def from_admin() -> Any:
        body = {"action": action, "_selected_action": [worker.pk], "index": 0}
        return admin.post("/admin/annotation/worker/", body)

    def from_api() -> Any:
        return api.post(f"/api/workers/{name}/{action}/", {"reason": "copied answers"}, format="json")

    operations = [answered_at_once_then_failed(fake, queued, ask) for ask in (from_admin, from_api)]

    assert [o.kind for o in operations] == [f"annotation.{action}_workers"] * 2
    worker.refresh_from_db()
    assert worker.blocked == (action == "unblock")  # unchanged here while the market never heard of it


def test_unblocking_runs_in_the_background_and_takes_the_worker_out_of_the_blocklist_group(
    fake: FakeProlific, queued: list[int], client: Client
) -> None:
    assignment = submitted(fake, published())
    block_worker(assignment.worker_id, "copied answers")
    admin = _admin(client)

    admin.post("/admin/annotation/worker/", {"action": "unblock", "_selected_action": [assignment.worker_id]})
    (operation_id,) = queued
    operation = run_operation(operation_id)

    assert operation.state == OperationState.DONE, operation.log
    (group,) = fake.groups.values()
    assert group["members"] == []
    assignment.worker.refresh_from_db()
    assert not assignment.worker.blocked


def _show_cost(admin: Client, job: Job) -> Any:
    return admin.post("/admin/annotation/job/", {"action": "show_market_cost", "_selected_action": [job.pk]})


def test_showing_the_market_cost_answers_at_once_with_the_market_down_and_the_operation_fails(
    fake: FakeProlific, queued: list[int], client: Client
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "5.00"})
    fake.down = True
    admin = _admin(client)

    operation = answered_at_once_then_failed(fake, queued, lambda: _show_cost(admin, job))

    assert operation.kind == "annotation.show_market_costs"
    assert f"{job}: Prolific unreachable" in operation.error  # which job, with the market's message


def test_the_market_cost_shows_on_its_operation_once_the_worker_has_read_the_market(
    fake: FakeProlific, queued: list[int], client: Client
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "5.00"})
    calls_before = len(fake.calls)

    _show_cost(_admin(client), job)
    assert len(fake.calls) == calls_before  # nothing asked in the request
    (operation_id,) = queued
    operation = run_operation(operation_id)

    assert operation.state == OperationState.DONE, operation.log
    assert f"{job}: worst case" in operation.log and "balance 10000" in operation.log


def _unreachable(fake: FakeProlific, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The market down (refuses at once) or hanging (no answer: the client's read times out)."""
    if how == "down":
        fake.down = True
        return

    def hang(request: Any, **kwargs: Any) -> Any:
        raise requests.ReadTimeout("the fake Prolific hangs")

    monkeypatch.setattr(fake, "send", hang)


def _confirmation(admin: Client, action: str, job: Job, **data: Any) -> Any:
    body = {"action": action, "_selected_action": [job.pk], **data}
    return admin.post("/admin/annotation/job/", body)


@pytest.mark.parametrize("how", ["down", "hanging"])
@pytest.mark.parametrize("action", ["publish_on_market", "extend_on_market"])
def test_the_cost_confirmations_answer_at_once_with_the_market_unreachable_and_say_it_was_never_read(
    fake: FakeProlific,
    queued: list[int],
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    action: str,
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "5.00"})
    if action == "extend_on_market":
        job = publish_job(job.pk)
    local = estimate_cost_locally(job, extra=1 if action == "extend_on_market" else 0)
    _unreachable(fake, how, monkeypatch)
    admin = _admin(client)

    with requests_tried(fake) as tried:
        page = _confirmation(admin, action, job)

    assert page.status_code == 200
    assert tried == [] and queued == []  # nothing asked, nothing started
    text = page.content.decode()
    assert str(local.spend) in text and "33.34%" in text  # Prolific's declared fee, computed here
    assert "never read: press" in text and "Read the market&#x27;s balance and price" in text


def test_the_publish_confirmation_shows_the_balance_as_last_read_and_when_while_the_market_hangs(
    fake: FakeProlific, queued: list[int], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "5.00"})
    admin = _admin(client)

    button = _confirmation(admin, "publish_on_market", job, read_market="Read")
    (operation_id,) = queued
    read = run_operation(operation_id)  # the worker reads the market while it answers
    _unreachable(fake, "hanging", monkeypatch)
    with requests_tried(fake) as tried:
        page = _confirmation(admin, "publish_on_market", job)

    assert button.status_code == 200 and "Publish these jobs?" in button.content.decode()
    assert read.kind == "annotation.show_market_costs" and read.state == OperationState.DONE, read.log
    assert tried == []  # the page shows the balance last read, asking the market nothing
    text = page.content.decode()
    assert f"read {timezone.localtime(read.finished_at):%Y-%m-%d %H:%M} UTC" in text  # type: ignore[arg-type]
    assert "balance 10000" in text and "within budget and balance" in text
