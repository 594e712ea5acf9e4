"""Gaps found on the money path, each kept as a test once the engine closed it.

A bonus set up (row confirmed) whose pay row was never written was invisible to the sweeper and to
reconciliation: nobody paid it. The pay row is now written in the transaction that confirms the set-up,
so a death between the two leaves the set-up unclear, shown to a person, who decides it.

In-process and on any database: the platform's fake Prolific answers the real client.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError
from django.utils import timezone

from annotation.ledger import engine, intents, records
from annotation.ledger.decisions import decide_unclear
from annotation.ledger.models import RowKind, RowState
from annotation.markets.prolific.fake import FakeProlific
from rigs.fault_rig import BONUS, make_bonuses
from tests.annotation.market_clients import market_clients

RECORD = intents.record


def die_before_recording_the_pay_row(kind: str, *args: Any, **kwargs: Any) -> Any:
    """The database connection drops (or the worker dies) just before the pay row is written."""
    if kind == RowKind.PAY:
        raise OperationalError("server closed the connection unexpectedly")
    return RECORD(kind, *args, **kwargs)


@pytest.mark.django_db
def test_a_delivery_that_dies_between_setting_up_a_bonus_and_recording_its_pay_row_loses_nothing(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT  # whose workspace's currency each payment reads
    market = FakeProlific()
    [bonus] = make_bonuses(1, market)
    with market_clients(prolific=market.client()):
        monkeypatch.setattr(records.intents, "record", die_before_recording_the_pay_row)
        with pytest.raises(OperationalError):
            engine.execute(bonus.pk)
        monkeypatch.undo()

        # What production does next: the sweeper, then the deliveries and reads it asks for.
        report = engine.sweep_stale(now=timezone.now() + dt.timedelta(hours=1))
        for entry_id in report.requeued:
            engine.execute(entry_id)
        for entry_id in report.unclear:
            engine.resolve(entry_id)

        # Prolific cannot read a set-up back, so the set-up stays unclear and nothing is sent again
        # (issue 26): nothing is lost, it waits for a person, and nobody is paid by a guess.
        bonus.refresh_from_db()
        assert bonus.state == RowState.UNCLEAR and market.paid(bonus.market_ref) == 0

        boss = User.objects.create_superuser("boss", "boss@example.com", "pw")
        decide_unclear(bonus.pk, moved=False, user=boss, evidence="an unpaid set-up pays nobody")
        asked_again = intents.bonus_intent(bonus.assignment, BONUS, "fault rig", "rule:faults")
        engine.execute(asked_again.pk)

        assert asked_again.pk != bonus.pk
        assert market.paid(bonus.market_ref) == 1
