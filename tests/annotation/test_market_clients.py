"""Market clients are chosen in settings (MARKET_CLIENTS), as Django chooses its mail backend."""

from __future__ import annotations

from decimal import Decimal

from django.test import override_settings

from annotation.markets.mturk.client import mturk_client
from annotation.markets.mturk.fake import ApprovingMTurk, approving_client

FAKE = "annotation.markets.mturk.fake.approving_client"


@override_settings(MTURK_ENABLED=False, MARKET_CLIENTS={"mturk": FAKE})
def test_the_client_named_in_settings_is_the_one_used() -> None:
    client = mturk_client()

    assert isinstance(client, ApprovingMTurk)
    assert client is approving_client()


@override_settings(MARKET_CLIENTS={"mturk": FAKE})
def test_the_fake_keeps_every_bonus_it_pays() -> None:
    client = mturk_client()
    before = len(client.bonus_tokens)  # type: ignore[attr-defined]

    outcome = client.send_bonus("W1", "A1", Decimal("0.50"), "All gold right", "token-1")

    assert outcome.ref == "A1"
    assert client.bonus_tokens[before:] == ["token-1"]  # type: ignore[attr-defined]
    assert client.get_assignment("A1").status == "Approved"
