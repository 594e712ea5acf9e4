"""Annotation fixtures: a stubbed MTurk (boto's Stubber checks every request against AWS's model); a
Prolific client over recorded replies (tests/annotation/recorded_prolific.py); browser tests skip,
with a reason, where Debian's Chromium is absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from botocore.stub import Stubber
from django.contrib.auth.models import Permission, User
from django.test import Client

from annotation.markets.mturk.client import MTurkClient
from annotation.markets.prolific.client import ProlificClient
from tests.annotation.market_clients import market_clients
from tests.annotation.recorded_prolific import RecordedProlific

CHROMIUM = Path("/usr/bin/chromium")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)


@pytest.fixture
def boto_client() -> Any:
    return boto3.client("mturk", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")


@pytest.fixture
def stub(boto_client: Any) -> Iterator[Stubber]:
    with Stubber(boto_client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


@pytest.fixture
def mturk(boto_client: Any, stub: Stubber) -> Iterator[MTurkClient]:
    """The stubbed client, installed as the platform's MTurk client (no retries, no sleeping)."""
    client = MTurkClient(client=boto_client, attempts=1, sleep=lambda seconds: None)
    with market_clients(mturk=client):
        yield client


@pytest.fixture
def market() -> RecordedProlific:
    """Prolific's recorded replies, and every request the client sent (a test module may give its own)."""
    return RecordedProlific()


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def prolific(market: RecordedProlific, waits: list[float]) -> ProlificClient:
    """A Prolific client over the recorded replies; its waits are recorded, never slept."""
    session = requests.Session()
    session.mount("https://", market)
    return ProlificClient("secret-token", session=session, sleep=waits.append, page_size=3)


@pytest.fixture
def previewer(db: None) -> Client:
    """A researcher who may view jobs: `?preview=1` shows them any job's items."""
    user = User.objects.create_user("researcher", password="pw-for-tests-1")
    user.user_permissions.add(Permission.objects.get(codename="view_job"))
    client = Client()
    client.force_login(user)
    return client
