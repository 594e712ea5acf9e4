"""The MTurk adapter's bonuses: amount and token sent, a timeout after MTurk paid retried with the same
token and paid once, a replayed token MTurk cannot show an error.
Against botocore's Stubber: every request is checked against AWS's own API model."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import Stubber

from annotation.ledger.tokens import idempotency_token
from annotation.markets.mturk.client import SANDBOX_ENDPOINT, MTurkClient, VerificationError
from tests.annotation.stubbed_mturk import ASSIGNMENT_ID, NOW, WORKER_ID, mturk

__all__ = ["mturk"]  # the fixture, imported for pytest (it retries, unlike conftest's)


def test_send_bonus_passes_amount_and_token(mturk: MTurkClient, stub: Stubber) -> None:
    token = idempotency_token("bonus", "mturk", "asg:1", "rule:accuracy")
    stub.add_response(
        "send_bonus",
        {},
        {
            "WorkerId": WORKER_ID,
            "AssignmentId": ASSIGNMENT_ID,
            "BonusAmount": "0.25",
            "Reason": "Correct answers",
            "UniqueRequestToken": token,
        },
    )

    assert mturk.send_bonus(WORKER_ID, ASSIGNMENT_ID, Decimal("0.25"), "Correct answers", token).ref == (
        ASSIGNMENT_ID
    )


def test_timeout_after_the_market_paid_a_bonus_retries_with_the_same_token_and_pays_once(
    boto_client: Any, mturk: MTurkClient, stub: Stubber
) -> None:
    token = idempotency_token("bonus", "mturk", "asg:1", "rule:accuracy")
    params = {
        "WorkerId": WORKER_ID,
        "AssignmentId": ASSIGNMENT_ID,
        "BonusAmount": "0.25",
        "Reason": "Correct answers",
        "UniqueRequestToken": token,
    }
    paid: list[str] = []

    def lose_the_reply(**kwargs: Any) -> None:
        # The market has accepted the bonus; the reply never reaches us.
        if kwargs["http_response"].status_code == 200 and not paid:
            paid.append(token)
            raise ReadTimeoutError(endpoint_url=SANDBOX_ENDPOINT)

    boto_client.meta.events.register("after-call.mturk.SendBonus", lose_the_reply)
    stub.add_response("send_bonus", {}, params)
    stub.add_client_error(
        "send_bonus",
        "RequestError",
        f"The request with UniqueRequestToken {token} has already been processed.",
        expected_params=params,
    )
    stub.add_response(
        "list_bonus_payments",
        {
            "BonusPayments": [
                {
                    "WorkerId": WORKER_ID,
                    "BonusAmount": "0.25",
                    "AssignmentId": ASSIGNMENT_ID,
                    "Reason": "Correct answers",
                    "GrantTime": NOW,
                }
            ],
            "NumResults": 1,
        },
        {"AssignmentId": ASSIGNMENT_ID, "MaxResults": 100},
    )

    outcome = mturk.send_bonus(WORKER_ID, ASSIGNMENT_ID, Decimal("0.25"), "Correct answers", token)

    assert outcome.replayed is True
    assert paid == [token]


def test_a_replayed_bonus_token_the_market_cannot_show_is_a_verification_error(
    mturk: MTurkClient, stub: Stubber
) -> None:
    stub.add_client_error("send_bonus", "RequestError", "This request has already been processed.")
    stub.add_response("list_bonus_payments", {"BonusPayments": [], "NumResults": 0})

    with pytest.raises(VerificationError):
        mturk.send_bonus(WORKER_ID, ASSIGNMENT_ID, Decimal("0.25"), "Correct answers", "tok")
