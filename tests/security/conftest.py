"""The hostile-worker suite: the annotation fixtures (stubbed MTurk) and a stateful fake MTurk."""

from collections.abc import Iterator
from typing import Any

import pytest

from annotation.markets.mturk.client import MTurkClient
from tests.annotation.conftest import boto_client, mturk, stub  # noqa: F401
from tests.annotation.fake_markets import FakeMTurk, Guard
from tests.annotation.market_clients import market_clients


@pytest.fixture
def fake_mturk(settings: Any) -> Iterator[FakeMTurk]:
    """A stateful MTurk behind a real boto3 client, guarded by the ledger (no unrecorded paying call)."""
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    market = FakeMTurk(Guard())
    with market_clients(mturk=MTurkClient(client=market.client, attempts=1)):
        yield market
    assert market.guard.violations == []
