"""Faults on the money path, with a real Celery worker process on its own Redis and a fake Prolific.

Each test pays Prolific bonuses (set up, then the non-idempotent pay call) through a worker that is
a separate OS process, injects one fault at the worst moment (the market has paid, the ledger does
not know yet), lets the engine's sweeper and resolver settle the ledger as production would, then
counts at the market: no payment lost, none paid twice, every ledger row confirmed or failed with
a reason. How the rig is built, and why, is in rigs/fault_rig.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from annotation.ledger.models import LedgerEntry, RowKind, RowState
from rigs.fault_rig import (
    Rig,
    Tally,
    drop_database,
    freeze_worker,
    kill_worker,
    restart_redis,
    rig,
)

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
PAYMENTS = 12
FAULT_AT = 5  # the call of the fifth payment is held when the fault lands


@pytest.fixture
def faults() -> Iterator[Rig]:
    with rig() as started:
        yield started


def pay_and_hold(faults: Rig, call: str = "pay") -> None:
    faults.hold(FAULT_AT, call)
    faults.pay(PAYMENTS)
    assert faults.market.held.wait(30), faults.worker.tail()


def assert_settled_cleanly(result: Tally, faults: Rig) -> None:
    log = faults.worker.tail()
    assert result.open_rows == 0, log
    assert (result.lost, result.paid_twice, result.unexplained_failures) == (0, 0, 0), log
    assert result.confirmed + result.failed == result.requested == PAYMENTS


def held_pay_row() -> LedgerEntry:
    """The pay row whose call the market answered and holds: paid, and the worker does not know."""
    return LedgerEntry.objects.get(kind=RowKind.PAY, state=RowState.SENT)


def test_a_worker_killed_while_the_market_pays_leaves_every_bonus_paid_once(faults: Rig) -> None:
    pay_and_hold(faults)
    in_doubt = held_pay_row()

    kill_worker(faults)
    result = faults.settle()

    assert_settled_cleanly(result, faults)
    resolved = LedgerEntry.objects.get(pk=in_doubt.pk)
    assert resolved.state == RowState.CONFIRMED
    assert "shows on the submission" in resolved.response_excerpt  # decided by reading, not by paying


def test_a_redis_restart_losing_the_queued_payments_leaves_every_bonus_paid_once(faults: Rig) -> None:
    pay_and_hold(faults)
    queued = faults.redis.queued()

    restart_redis(faults)
    result = faults.settle()

    assert queued > 0  # the fault really did drop payments waiting in the broker
    assert_settled_cleanly(result, faults)


def test_a_dropped_database_connection_while_the_market_pays_leaves_every_bonus_paid_once(
    faults: Rig,
) -> None:
    pay_and_hold(faults)
    in_doubt = held_pay_row()

    drop_database(faults)
    result = faults.settle()

    assert "terminating connection" in faults.worker.tail(400)  # the write after the payment failed
    assert_settled_cleanly(result, faults)
    assert LedgerEntry.objects.get(pk=in_doubt.pk).state == RowState.CONFIRMED


def test_a_worker_frozen_mid_payment_past_the_stale_limit_does_not_pay_again_when_it_wakes(
    faults: Rig,
) -> None:
    pay_and_hold(faults, "read-before-bonus")
    claimed = LedgerEntry.objects.get(kind=RowKind.BONUS, state=RowState.CLAIMED)

    freeze_worker(faults)
    result = faults.settle()

    assert_settled_cleanly(result, faults)
    assert LedgerEntry.objects.get(pk=claimed.pk).attempts == 2  # claimed again by the replacement
    assert len(faults.market.bulks) == PAYMENTS  # the woken worker lost its claim and set nothing up
