"""The hostile-worker suite: the annotation fixtures (stubbed MTurk) and a stateful fake MTurk."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.annotation.conftest import boto_client, mturk, stub  # noqa: F401
from tests.annotation.fake_markets import Guard, GuardedMTurk
from tests.annotation.market_clients import market_clients


@pytest.fixture
def fake_mturk(settings: Any) -> Iterator[GuardedMTurk]:
    """A stateful MTurk behind a real boto3 client, guarded by the ledger (no unrecorded paying call)."""
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    market = GuardedMTurk(Guard())
    with market_clients(mturk=market.client(attempts=1)):
        yield market
    assert market.guard.violations == []
