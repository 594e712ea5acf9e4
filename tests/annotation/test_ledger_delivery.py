"""Delivery of ledger tasks through a real broker (Redis) to a real Celery worker.

The services are tested eagerly elsewhere; here the question is delivery: a payment task that the
broker delivers many times (redelivery after a lost ack, a double enqueue) still reaches the market
once, and a row queued with `delay_on_commit` is executed only after its transaction commits.
Each test consumes its own queue, so tests running elsewhere on the same Redis are left alone.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import before_task_publish, task_postrun
from django.db import connection, transaction

from annotation.ledger import intents
from annotation.ledger.models import LedgerEntry, RowState
from annotation.ledger.tasks import execute_ledger_entry_task
from config.celery import app
from tests.annotation.market_clients import market_clients
from tests.annotation.test_ledger import CountingMarket, make_assignment, make_job

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
DELIVERIES = 20
WAIT = 60  # seconds: a bound on the whole delivery, far above what it takes


@pytest.fixture
def market() -> Iterator[CountingMarket]:
    counting = CountingMarket()
    with market_clients(mturk=counting):
        yield counting


@pytest.fixture
def queue() -> Iterator[str]:
    name = f"stancework-test-{uuid.uuid4().hex}"
    # SQLite's shared in-memory test database cannot take concurrent writers; PostgreSQL can.
    pool = "solo" if connection.vendor == "sqlite" else "threads"
    # Worker threads keep their database connections (CONN_MAX_AGE); close each after its task so
    # none outlives the test and holds the test database open.
    task_postrun.connect(close_connection, weak=False)
    with start_worker(
        app,
        pool=pool,
        concurrency=1 if pool == "solo" else 8,
        perform_ping_check=False,
        queues=[name],
        shutdown_timeout=WAIT,
    ):
        yield name
    task_postrun.disconnect(close_connection)


def close_connection(**kwargs: object) -> None:
    connection.close()


def test_a_payment_delivered_many_times_by_the_broker_pays_once(market: CountingMarket, queue: str) -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")

    results = [execute_ledger_entry_task.apply_async((entry.pk,), queue=queue) for _ in range(DELIVERIES)]
    states = [result.get(timeout=WAIT) for result in results]

    assert market.bonuses == [entry.token]
    assert LedgerEntry.objects.get(pk=entry.pk).state == RowState.CONFIRMED
    assert set(states) <= {RowState.CLAIMED, RowState.SENT, RowState.CONFIRMED}


@contextmanager
def published(task_name: str) -> Iterator[list[str]]:
    """The ids of the `task_name` messages this process hands to the broker while the block runs."""
    sent: list[str] = []

    def record(sender: str | None = None, headers: dict[str, str] | None = None, **kwargs: object) -> None:
        if sender == task_name and headers:
            sent.append(headers["id"])

    before_task_publish.connect(record, weak=False)
    try:
        yield sent
    finally:
        before_task_publish.disconnect(record)


@pytest.fixture
def routed(queue: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Send the ledger task to this test's queue, for the test."""
    monkeypatch.setattr(execute_ledger_entry_task, "queue", queue, raising=False)
    monkeypatch.setattr(execute_ledger_entry_task, "_exec_options", None)  # Celery caches the options
    return queue


def test_a_row_queued_on_commit_runs_only_after_the_commit(market: CountingMarket, routed: str) -> None:
    assignment = make_assignment(make_job())

    with published(execute_ledger_entry_task.name) as sent:
        with transaction.atomic():
            entry = intents.bonus_intent(assignment, Decimal("0.5"), "All gold right", "rule:gold")
            execute_ledger_entry_task.delay_on_commit(entry.pk)
            # Sending is synchronous: a task sent now would be listed already, and the worker could
            # find no row, or pay before the commit.
            assert sent == []
        assert len(sent) == 1
    deadline = time.monotonic() + WAIT
    while LedgerEntry.objects.get(pk=entry.pk).state != RowState.CONFIRMED and time.monotonic() < deadline:
        time.sleep(0.05)

    assert LedgerEntry.objects.get(pk=entry.pk).state == RowState.CONFIRMED
    assert market.bonuses == [entry.token]
