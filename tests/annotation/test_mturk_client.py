"""The MTurk client itself: which errors are retried, notifications in batches of 100, the balance, the
endpoints, the closure warning and the configuration check. Its calls go through botocore's Stubber,
which checks every request against AWS's own API model."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from botocore.stub import Stubber

from annotation.market_interface.errors import MarketRejectedError, MarketUnavailableError
from annotation.markets.mturk.client import (
    PRODUCTION_ENDPOINT,
    SANDBOX_ENDPOINT,
    MTurkClient,
    build_boto3_client,
    mturk_closure_warning,
)
from tests.annotation.stubbed_mturk import mturk

__all__ = ["mturk"]  # the fixture, imported for pytest (it retries, unlike conftest's)


def test_a_request_error_is_not_retried(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_client_error("get_account_balance", "RequestError", "bad")

    with pytest.raises(MarketRejectedError):
        mturk.get_account_balance()


def test_persistent_server_faults_end_as_market_unavailable(mturk: MTurkClient, stub: Stubber) -> None:
    for _ in range(3):
        stub.add_client_error("get_account_balance", "ServiceFault", "down", 500)

    with pytest.raises(MarketUnavailableError):
        mturk.get_account_balance()


def test_notify_workers_sends_at_most_100_ids_per_call(mturk: MTurkClient, stub: Stubber) -> None:
    workers = [f"AWORKER{n:07d}" for n in range(250)]
    for chunk in (workers[:100], workers[100:200], workers[200:]):
        stub.add_response(
            "notify_workers",
            {"NotifyWorkersFailureStatuses": []},
            {"Subject": "New HITs", "MessageText": "Hello", "WorkerIds": chunk},
        )

    assert mturk.notify_workers(workers + workers[:5], "New HITs", "Hello") == []


def test_balance_is_read_as_dollars(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response("get_account_balance", {"AvailableBalance": "10000.00"}, {})

    assert mturk.get_account_balance() == Decimal("10000.00")


def test_sandbox_and_production_endpoints_come_from_the_flag() -> None:
    assert build_boto3_client(sandbox=True).meta.endpoint_url == SANDBOX_ENDPOINT
    assert build_boto3_client(sandbox=False).meta.endpoint_url == PRODUCTION_ENDPOINT


def test_closure_warning_names_the_date() -> None:
    assert "closes on 2026-09-30" in mturk_closure_warning(dt.date(2026, 1, 1))
    assert "closed on 2026-09-30" in mturk_closure_warning(dt.date(2026, 10, 1))


def test_mturk_configured_is_a_system_check_warning(settings: Any) -> None:
    from django.core.checks import run_checks

    settings.MTURK_ENABLED = True
    warned = [m.id for m in run_checks(tags=["compatibility"])]
    settings.MTURK_ENABLED = False
    quiet = [m.id for m in run_checks(tags=["compatibility"])]

    assert "annotation.W001" in warned
    assert "annotation.W001" not in quiet
