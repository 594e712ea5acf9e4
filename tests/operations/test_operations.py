"""Admin operations: recorded first, run by a worker after the request commits, exactly once."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client, TestCase

from annotation.models import Job, JobState
from annotation.work.jobs import create_job
from operations import registry
from operations.models import Operation, OperationState
from operations.services import run_operation, start_operation
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db
CALLS: list[int] = []


@registry.register("tests.count")
def count(progress: registry.Progress, n: int) -> None:
    for i in range(n):
        CALLS.append(i)
        progress.step(f"item {i}: counted")


@registry.register("tests.break")
def breaks(progress: registry.Progress) -> None:
    progress.step("first: fine")
    raise RuntimeError("the market went away")


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("admin", "admin@example.com", "pw"))
    return client


def test_publishing_from_the_admin_runs_after_the_request_not_inside_it(staff: Client) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, budget=Decimal("100"))
    form = {"action": "publish_on_market", "_selected_action": [job.pk], "confirm": "Publish"}

    with TestCase.captureOnCommitCallbacks(execute=False) as queued:
        response = staff.post("/admin/annotation/job/", form, follow=True)

    operation = Operation.objects.get()
    assert b"follow its progress" in response.content
    assert (operation.state, Job.objects.get(pk=job.pk).state) == (OperationState.QUEUED, JobState.DRAFT)
    for callback in queued:
        callback()  # the worker picks it up once the request has committed
    operation.refresh_from_db()
    assert (operation.state, operation.done, operation.total) == (OperationState.DONE, 1, 1)
    assert "now published" in operation.log
    assert Job.objects.get(pk=job.pk).state == JobState.PUBLISHED


def test_a_second_delivery_of_the_same_operation_runs_nothing() -> None:
    CALLS.clear()
    with TestCase.captureOnCommitCallbacks(execute=False):
        operation = start_operation("tests.count", "Count", {"n": 3}, total=3)

    run_operation(operation.pk)
    again = run_operation(operation.pk)

    assert CALLS == [0, 1, 2]
    assert (again.state, again.done) == (OperationState.DONE, 3)
    assert again.log.splitlines() == ["item 0: counted", "item 1: counted", "item 2: counted"]


def test_a_run_that_breaks_is_marked_failed_with_its_reason_and_keeps_its_steps() -> None:
    with TestCase.captureOnCommitCallbacks(execute=False):
        operation = start_operation("tests.break", "Break", {}, total=2)

    with pytest.raises(RuntimeError):
        run_operation(operation.pk)

    operation.refresh_from_db()
    assert operation.state == OperationState.FAILED
    assert operation.error == "RuntimeError: the market went away"
    assert (operation.done, operation.log) == (1, "first: fine\n")


def test_an_unknown_operation_is_refused_before_anything_is_written() -> None:
    with pytest.raises(registry.UnknownOperationError):
        start_operation("tests.nothing", "Nothing", {}, total=0)
    assert not Operation.objects.exists()


def test_the_operation_pages_refresh_themselves_only_while_it_runs(staff: Client) -> None:
    with TestCase.captureOnCommitCallbacks(execute=False):
        operation = start_operation("tests.count", "Count", {"n": 1}, total=1)
    refresh = b'http-equiv="refresh"'

    running = [
        staff.get("/admin/operations/operation/"),
        staff.get(f"/admin/operations/operation/{operation.pk}/change/"),
    ]
    run_operation(operation.pk)
    finished = staff.get(f"/admin/operations/operation/{operation.pk}/change/")

    assert all(refresh in page.content for page in running)
    assert refresh not in finished.content and b"item 0: counted" in finished.content
