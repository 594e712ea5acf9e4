"""The MTurk client of the adapter's tests, over botocore's Stubber (conftest.py's `stub`), retrying as in
production but never sleeping; the ids and the assignment record the stubbed replies use."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from botocore.stub import Stubber

from annotation.markets.mturk.client import MTurkClient

HIT_ID = "3AQN9REUTFGXCRWFMS2HA7Y9KHNDYV"


HIT_TYPE_ID = "3K4J6M3CXES7QXRO3FW2QJQ2DQ2GQS"


ASSIGNMENT_ID = "3PWWM24LHSX369EBUXKO681UQPO82A"


WORKER_ID = "A2Z8QB6XQFTQ1D"


NOW = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def mturk(boto_client: Any, stub: Stubber) -> MTurkClient:
    return MTurkClient(client=boto_client, sleep=lambda seconds: None)


def assignment(number: int, status: str = "Submitted") -> dict[str, Any]:
    return {
        "AssignmentId": f"ASG{number:027d}",
        "WorkerId": f"AWORKER{number:07d}",
        "HITId": HIT_ID,
        "AssignmentStatus": status,
        "SubmitTime": NOW,
        "Answer": "<QuestionFormAnswers/>",
    }
