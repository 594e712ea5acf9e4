"""Market clients are chosen in settings (MARKET_CLIENTS), as Django chooses its mail backend."""

from __future__ import annotations

from decimal import Decimal

from django.test import override_settings

from annotation.markets.mturk.client import MTurkClient, mturk_client
from annotation.markets.mturk.fake import fake_client, fake_market

FAKE = "annotation.markets.mturk.fake.fake_client"
HIT, ASSIGNMENT, WORKER = "HIT000000000000000000000000042", "ASG42", "AWORKER42"


@override_settings(MTURK_ENABLED=False, MARKET_CLIENTS={"mturk": FAKE})
def test_the_client_named_in_settings_is_the_one_used() -> None:
    client = mturk_client()

    assert isinstance(client, MTurkClient)
    assert client is fake_client()
    assert client.client is fake_market().boto


@override_settings(MARKET_CLIENTS={"mturk": FAKE})
def test_the_fake_keeps_every_bonus_it_pays() -> None:
    market = fake_market()
    market.submit(HIT, ASSIGNMENT, WORKER, status="Approved")
    before = len(market.bonuses)

    outcome = mturk_client().send_bonus(WORKER, ASSIGNMENT, Decimal("0.50"), "All gold right", "token-42")

    assert outcome.ref == ASSIGNMENT and not outcome.replayed
    assert [b["BonusAmount"] for b in market.bonuses[before:]] == ["0.50"]
    assert mturk_client().get_assignment(ASSIGNMENT).status == "Approved"
