"""No market call inside a web request; one currency per job; Prolific screening per job; reconciliation
of drafts and of studies nobody owns. Against FakeProlific (schema-checked, ledger-guarded)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
import requests
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import AuditEvent
from annotation.ledger import intents
from annotation.ledger.models import IssueKind, LedgerEntry, ReconciliationIssue, RowKind
from annotation.ledger.reconcile import jobs_to_reconcile, reconcile_job, reconcile_markets
from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.schema import by_operation, check_request
from annotation.models import AssignmentState, Job, JobState
from annotation.work.cost_checks import estimate_cost, estimate_cost_locally
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job, publish_job
from annotation.work.market import bonus_assignment
from annotation.work.records import block_worker, worker_pseudonym
from operations.models import Operation, OperationState
from operations.services import run_operation
from tests.annotation.factories import make_corpus
from tests.annotation.test_prolific_market import fake, published, study_of, submitted

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest
SCREENING = {
    "languages": ["19"],
    "countries": ["1", "2"],
    "approval_rate": {"lower": 95, "upper": 100},
    "previous_submissions": {"lower": 100},
    "devices": ["desktop", "tablet"],
    "naivety_distribution_rate": 0.5,
    "maximum_allowed_time": 45,
}


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Operations queued for a worker instead of run in-process: what the broker would hold."""
    from operations.tasks import run_operation_task

    held: list[int] = []
    monkeypatch.setattr(run_operation_task, "delay_on_commit", held.append)
    return held


# -- no market call inside a web request ----------------------------------------------------------


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


# -- one currency per job -------------------------------------------------------------------------


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


def test_every_ledger_row_of_a_job_uses_the_workspace_currency_fixed_at_creation(
    fake: FakeProlific, settings: Any
) -> None:
    settings.PROLIFIC_CURRENCY = "GBP"
    job = published()
    assignment = submitted(fake, job, state=AssignmentState.APPROVED)
    bonus_assignment(assignment.pk, Decimal("0.30"), "Gold right", "gold")

    assert job.currency == "GBP"
    assert set(LedgerEntry.objects.filter(job=job).values_list("currency", flat=True)) == {"GBP"}
    assert set(LedgerEntry.objects.filter(job=job).values_list("kind", flat=True)) >= {
        RowKind.CREATE_HIT, RowKind.BONUS, RowKind.PAY,
    }  # fmt: skip
    with pytest.raises(intents.CurrencyError, match="booked in GBP"):
        intents.record(RowKind.EXTEND, "prolific", ["x"], job_id=job.pk, currency="USD")


def test_a_job_in_another_currency_than_the_workspace_is_refused_naming_both(
    fake: FakeProlific, settings: Any
) -> None:
    make_corpus(claims=1, perspectives=1)
    with pytest.raises(JobError, match=r"asks for USD.*pays in GBP"):
        create_job("stance", {}, market="prolific", params={"currency": "USD"})
    settings.PROLIFIC_CURRENCY = "EUR"  # what we believe; the workspace (the fake) pays in GBP
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "1.00"})

    with pytest.raises(Exception, match=r"booked in EUR.*pays in GBP"):
        publish_job(job.pk)
    assert fake.studies == {} and not LedgerEntry.objects.exists()


def test_an_mturk_job_is_in_us_dollars_and_refuses_another_currency() -> None:
    make_corpus(claims=1, perspectives=1)
    with pytest.raises(JobError, match="pays in USD"):
        create_job("stance", {}, market="mturk", params={"currency": "GBP"})


# -- Prolific screening ---------------------------------------------------------------------------


def test_a_job_published_with_language_and_country_filters_sends_them_in_prolifics_format(
    fake: FakeProlific,
) -> None:
    job = published(prolific_screening=SCREENING, minutes=10)

    sent = fake.studies[study_of(job)]["sent"]
    check_request("POST", "https://api.prolific.com/api/v1/studies/", sent)  # the published schema
    assert sent["filters"][:4] == [
        {"filter_id": "fluent-languages", "selected_values": ["19"]},
        {"filter_id": "current-country-of-residence", "selected_values": ["1", "2"]},
        {"filter_id": "approval_rate", "selected_range": {"lower": 95, "upper": 100}},
        {"filter_id": "approval_numbers", "selected_range": {"lower": 100}},
    ]
    assert sent["filters"][4]["filter_id"] == "participant_group_blocklist"
    assert sent["device_compatibility"] == ["desktop", "tablet"]
    assert (sent["naivety_distribution_rate"], sent["maximum_allowed_time"]) == (0.5, 45)
    assert by_operation("create-study").operation == "create-study"


@pytest.mark.parametrize(
    ("screening", "said"),
    [
        ({"countries": "UK"}, "choice ids"),
        ({"approval_rate": {"lower": 120}}, "within 0..100"),
        ({"approval_rate": {"lower": 99, "upper": 90}}, "above upper"),
        ({"devices": ["watch"]}, "devices must be"),
        ({"naivety_distribution_rate": 2}, "between 0 and 1"),
        ({"maximum_allowed_time": 5}, "at least 29"),
        ({"maximum_allowed_time": 28}, "at least 29 for an estimated time of 10"),
        ({"gender": ["1"]}, "has no"),
    ],
)
def test_a_screening_prolific_would_refuse_is_refused_before_any_call(
    fake: FakeProlific, screening: dict[str, Any], said: str
) -> None:
    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="prolific", params={"prolific_screening": screening})

    with pytest.raises(JobError, match=said):
        publish_job(job.pk)
    assert fake.calls == [] and not LedgerEntry.objects.exists()


def test_the_fee_comes_from_prolifics_study_cost_calculator_vat_included(fake: FakeProlific) -> None:
    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="prolific")

    estimate = estimate_cost(job)

    assert "calculate-study-cost" in [op for op, _ in fake.calls]
    assert Decimal("0.39") < estimate.fee_rate < Decimal("0.41")  # 33.34% fee plus 20% VAT on the fee


# -- reconciliation -------------------------------------------------------------------------------


def test_a_draft_whose_study_went_live_is_reconciled_and_flagged(fake: FakeProlific) -> None:
    job = published()
    Job.objects.filter(pk=job.pk).update(state=JobState.DRAFT)  # the publish reply was lost
    job.hits.update(external_id="")

    assert job.pk in jobs_to_reconcile()
    issues = reconcile_job(job.pk)

    assert [(i.kind, i.ref) for i in issues] == [(IssueKind.HIT, study_of_ledger(job))]
    assert "ACTIVE" in issues[0].theirs


def study_of_ledger(job: Job) -> str:
    return str(LedgerEntry.objects.get(job=job, kind=RowKind.CREATE_HIT).result_ref)


def test_a_study_in_our_project_that_no_job_owns_is_flagged(fake: FakeProlific) -> None:
    job = published()
    fake.studies["study-by-hand"] = {
        "id": "study-by-hand",
        "internal_name": "made by hand",
        "status": "ACTIVE",
        "total_available_places": 3,
        "project": FakeProlific.PROJECT,
    }

    found = reconcile_markets()

    assert [(i.kind, i.ref, i.job_id) for i in found] == [(IssueKind.UNOWNED, "study-by-hand", None)]
    assert ReconciliationIssue.objects.filter(kind=IssueKind.UNOWNED).count() == 1
    assert study_of(job) not in {i.ref for i in found}
