"""The fake Prolific beside its client: chosen in settings, held to Prolific's schema, and served to
another process on a loopback port with the same market behind it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from decimal import Decimal

import pytest
import requests
from django.test import override_settings

from annotation.market_interface.errors import MarketRejectedError, PaymentOutcomeUnclearError
from annotation.markets.prolific.client import ProlificClient, prolific_client
from annotation.markets.prolific.fake import FakeProlific, fake_client
from annotation.markets.prolific.fake_server import FakeProlificServer
from annotation.markets.prolific.schema import SchemaViolation

FAKE = "annotation.markets.prolific.fake.fake_client"
STUDY, SUBMISSION = "study0000000000000000001", "submission000000000000001"


def approved(market: FakeProlific) -> FakeProlific:
    market.submit(STUDY, SUBMISSION, "participant00000000000001", status="APPROVED")
    return market


def bonus_of(client: ProlificClient, cents: int = 25) -> str:
    return client.create_bonus_payment(STUDY, [(SUBMISSION, Decimal(cents) / 100)]).bulk_id


@pytest.fixture
def served() -> Iterator[FakeProlificServer]:
    with FakeProlificServer(approved(FakeProlific())) as server:
        yield server


@override_settings(MARKET_CLIENTS={"prolific": FAKE})
def test_the_fake_named_in_settings_is_the_client_used() -> None:
    client = prolific_client()

    assert client is fake_client()
    assert client.get_project(FakeProlific.PROJECT).workspace_id == FakeProlific.WORKSPACE


def test_a_request_prolific_does_not_document_is_refused() -> None:
    client = FakeProlific().client(attempts=1)

    with pytest.raises(SchemaViolation, match="no such endpoint"):
        client.session.get("https://api.prolific.com/api/v1/nowhere/")


def test_an_unknown_submission_is_answered_404_as_prolific_does() -> None:
    with pytest.raises(MarketRejectedError, match="404"):
        FakeProlific().client(attempts=1).get_submission("nobody")


def test_every_pay_call_pays_as_at_prolific() -> None:
    market = approved(FakeProlific())
    client = market.client(attempts=1)
    bulk = bonus_of(client)

    client.pay_bonus_payment(bulk)
    client.pay_bonus_payment(bulk)

    assert market.paid(SUBMISSION) == 2
    assert client.bonuses_paid(SUBMISSION) == (25, 25)


def test_the_served_fake_answers_a_client_reaching_it_over_http(served: FakeProlificServer) -> None:
    client = ProlificClient("token", base_url=served.url, attempts=1)

    client.pay_bonus_payment(bonus_of(client, 40))

    assert served.market.paid(SUBMISSION) == 1
    assert client.bonuses_paid(SUBMISSION) == (40,)
    assert served.refused == []


def test_a_reply_the_served_fake_loses_leaves_the_payment_made_and_the_caller_unsure(
    served: FakeProlificServer,
) -> None:
    client = ProlificClient("token", base_url=served.url, attempts=1)
    bulk = bonus_of(client)
    served.market.lose_reply("pay-bonus-payments")

    with pytest.raises(PaymentOutcomeUnclearError):
        client.pay_bonus_payment(bulk)

    assert served.market.paid(SUBMISSION) == 1


def test_the_served_fake_holds_a_reply_after_the_work_until_released(served: FakeProlificServer) -> None:
    client = ProlificClient("token", base_url=served.url, attempts=1)
    bulk = bonus_of(client)
    served.market.hold(1, "pay-bonus-payments")
    paying = threading.Thread(target=client.pay_bonus_payment, args=[bulk])

    paying.start()
    assert served.market.held.wait(10)
    paid_while_held = served.market.paid(SUBMISSION)
    served.market.release.set()
    paying.join(10)

    assert paid_while_held == 1 and not paying.is_alive()


def test_a_request_off_the_schema_is_answered_400_and_kept(served: FakeProlificServer) -> None:
    response = requests.post(f"{served.url}/api/v1/nowhere/", json={}, timeout=10)

    assert response.status_code == 400
    assert len(served.refused) == 1 and "no such endpoint" in served.refused[0]
