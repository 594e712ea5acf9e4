"""Ledger rows that can be retried and are never reused wrongly (crowd-integrity issue, point 6)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import pytest
from botocore.stub import Stubber
from django.core.management import call_command
from django.utils import timezone

from annotation.ledger import engine, intents
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.base import (
    Capabilities,
    Listing,
    Market,
    MarketCallError,
    Money,
    SyncReport,
)
from annotation.market_interface.money import Finish, Records, Row
from annotation.models import AssignmentState, Hit, Job, JobState
from annotation.work.assignments import get_worker
from annotation.work.jobs import create_job, publish_job
from annotation.work.market import bonus_assignment
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db
sent_calls: list[str] = []


class FlakyMoney(Money):
    """The flaky market's paying calls."""

    def work_status(self, row: Row) -> str:
        raise AssertionError("it declares no payable states, so the engine never reads a work status")

    def send(self, row: Row, records: Records) -> Finish:
        sent_calls.append(row.token)
        if len(sent_calls) == 1:
            return Finish(RowState.FAILED, excerpt="refused: try later")
        return Finish(RowState.CONFIRMED, f"made-{len(sent_calls)}")


class FlakyMarket(Market):
    """The market refuses the first call of every intent, then accepts."""

    name = "flaky"
    capabilities = Capabilities(review=True, bonus=True)
    money = FlakyMoney("Flaky")

    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterator[Listing]:
        for hit in hits:
            yield Listing((hit.pk,), external_id=f"flaky-{hit.pk}")

    def sync(self, job: Job, queue: Any) -> SyncReport:
        return SyncReport()


@pytest.fixture
def flaky(settings: Any) -> None:
    sent_calls.clear()
    settings.ANNOTATION_MARKETS = {**settings.ANNOTATION_MARKETS, "flaky": f"{__name__}.FlakyMarket"}


def test_a_failed_row_is_retried_as_a_new_attempt_that_reaches_the_market(flaky: None) -> None:
    first = intents.record(RowKind.CREATE_HIT, "flaky", ["job:1", "hit:1"], amount=Decimal("3"))
    assert engine.execute(first.pk).state == RowState.FAILED

    again = intents.record(RowKind.CREATE_HIT, "flaky", ["job:1", "hit:1"], amount=Decimal("3"))
    done = engine.execute(again.pk)

    assert again.pk != first.pk and again.token != first.token
    assert (done.state, done.attempt) == (RowState.CONFIRMED, 2)
    assert sent_calls == [first.token, again.token]
    assert LedgerEntry.objects.get(pk=first.pk).state == RowState.FAILED  # history kept


def test_a_confirmed_or_open_row_is_found_again_not_retried(flaky: None) -> None:
    sent_calls.append("earlier refusal")  # the market accepts from now on
    first = intents.record(RowKind.CREATE_HIT, "flaky", ["job:1", "hit:1"], amount=Decimal("3"))
    engine.execute(first.pk)

    again = intents.record(RowKind.CREATE_HIT, "flaky", ["job:1", "hit:1"], amount=Decimal("3"))

    assert again.pk == first.pk and again.state == RowState.CONFIRMED


def test_the_same_key_with_another_amount_is_a_conflict_and_pays_nothing(flaky: None) -> None:
    first = intents.record(RowKind.BONUS, "flaky", ["asg:A1", "batch:b"], amount=Decimal("0.50"))

    with pytest.raises(intents.IdempotencyConflictError, match=r"0\.50"):
        intents.record(RowKind.BONUS, "flaky", ["asg:A1", "batch:b"], amount=Decimal("2.00"))

    assert list(LedgerEntry.objects.values_list("pk", "amount")) == [(first.pk, Decimal("0.50"))]
    assert sent_calls == []


def test_the_same_key_with_other_parameters_is_a_conflict(flaky: None) -> None:
    intents.record(RowKind.REJECT, "flaky", ["asg:A1"], params={"feedback": "Checks failed."})

    with pytest.raises(intents.IdempotencyConflictError):
        intents.record(RowKind.REJECT, "flaky", ["asg:A1"], params={"feedback": "Another reason."})


def test_a_bonus_batch_paid_again_with_another_amount_is_refused(flaky: None) -> None:
    make_corpus(claims=1, perspectives=2)
    job = publish_job(create_job("stance", {}, market="flaky", params={"bonus_cap": 5}).pk)
    worker = get_worker("flaky", "W1")
    assignment = job.assignments.model.objects.create(
        job=job,
        hit=job.hits.first(),
        worker=worker,
        external_id="A1",
        state=AssignmentState.SUBMITTED,
        accepted_at=timezone.now(),
    )
    sent_calls.append("earlier refusal")
    bonus_assignment(assignment.pk, Decimal("0.50"), "Gold right", "gold")

    with pytest.raises(intents.IdempotencyConflictError):
        bonus_assignment(assignment.pk, Decimal("2.00"), "Gold right", "gold")

    paid = LedgerEntry.objects.filter(kind=RowKind.BONUS)
    assert [(row.amount, row.state) for row in paid] == [(Decimal("0.50"), RowState.CONFIRMED)]


def test_the_retry_command_makes_a_new_attempt_of_a_failed_row(flaky: None) -> None:
    first = intents.record(RowKind.BONUS, "flaky", ["asg:A1", "batch:b"], amount=Decimal("0.50"))
    engine.execute(first.pk)

    call_command("retry_ledger_entry", str(first.pk))

    retried = LedgerEntry.objects.exclude(pk=first.pk).get()
    assert (retried.attempt, retried.state, retried.amount) == (2, RowState.CONFIRMED, Decimal("0.50"))


def test_a_refused_create_hit_does_not_block_publishing_for_ever(
    settings: Any, stub: Stubber, mturk: Any
) -> None:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"))
    Hit.objects.create(job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"))
    for outcome in ("refused", "created"):
        stub.add_response("get_account_balance", {"AvailableBalance": "100.00"})
        stub.add_response("create_hit_type", {"HITTypeId": "T" * 30})
        if outcome == "refused":
            stub.add_client_error("create_hit_with_hit_type", "RequestError", "Insufficient funds.")
        else:
            stub.add_response("create_hit_with_hit_type", {"HIT": {"HITId": "H" * 30, "HITTypeId": "T" * 30}})

    with pytest.raises(MarketCallError):
        publish_job(job.pk)
    published = publish_job(job.pk)

    assert published.state == JobState.PUBLISHED
    tokens = list(LedgerEntry.objects.order_by("attempt").values_list("attempt", "state"))
    assert tokens == [(1, RowState.FAILED), (2, RowState.CONFIRMED)]
