"""The Prolific client's review and money: submissions approved and rejected, bonuses set up in cents
and paid once, an unclear pay never retried. Against the recorded Prolific
(tests/annotation/recorded_prolific.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
import requests

from annotation.market_interface.errors import MarketRejectedError, PaymentOutcomeUnclearError
from annotation.markets.prolific.client import ProlificClient
from tests.annotation.recorded_prolific import BULK, STUDY, SUBMISSION, RecordedProlific, Reply


def test_approve_and_reject_transition_the_submission(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    path = f"/api/v1/submissions/{SUBMISSION}/transition/"
    market.add("POST", path, (200, "submission_approved.json"))
    market.add("POST", path, (200, "submission_rejected.json"))
    reason = "The answers were given faster than the items could be read, and all three checks failed. " * 2

    approved = prolific.approve_submission(SUBMISSION)
    rejected = prolific.reject_submission(SUBMISSION, reason, "FAILED_CHECK")

    assert (approved.status, rejected.status) == ("APPROVED", "REJECTED")
    assert market.requests[1][2] == {
        "action": "REJECT",
        "message": reason,
        "rejection_category": "FAILED_CHECK",
    }


def test_a_partially_approved_submission_is_read(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("GET", f"/api/v1/submissions/{SUBMISSION}/", (200, "submission_partially_approved.json"))

    assert prolific.get_submission(SUBMISSION).status == "PARTIALLY APPROVED"


def test_bonus_setup_sends_currency_and_reads_the_answer_in_cents(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/submissions/bonus-payments/", (201, "bonus_created.json"))

    bulk = prolific.create_bonus_payment(
        STUDY, [(SUBMISSION, Decimal("0.25")), ("60d9aadeb86739de712faee1", Decimal("0.375"))]
    )

    assert market.requests[0][2] == {
        "study_id": STUDY,
        "csv_bonuses": f"{SUBMISSION},0.25\n60d9aadeb86739de712faee1,0.38",
    }
    assert (bulk.bulk_id, bulk.amount_cents, bulk.fees_cents, bulk.vat_cents) == (BULK, 63, 21, 4)
    assert bulk.total == Decimal("0.88")


def test_paying_a_bonus_is_one_call(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("POST", f"/api/v1/bulk-bonus-payments/{BULK}/pay/", (202, "bonus_paid.json"))

    assert "processed asynchronously" in prolific.pay_bonus_payment(BULK)


@pytest.mark.parametrize(
    "reply",
    [requests.ReadTimeout("read timed out"), (502, ""), requests.exceptions.ChunkedEncodingError("cut")],
    ids=["timeout", "502", "broken-body"],
)
def test_an_unclear_pay_is_never_retried(
    prolific: ProlificClient, market: RecordedProlific, reply: Reply
) -> None:
    path = f"/api/v1/bulk-bonus-payments/{BULK}/pay/"
    market.add("POST", path, reply)
    market.add("POST", path, (202, "bonus_paid.json"))

    with pytest.raises(PaymentOutcomeUnclearError):
        prolific.pay_bonus_payment(BULK)

    assert market.calls("POST", path) == 1


def test_a_throttled_pay_was_not_processed_and_is_sent_again_after_its_retry_after(
    market: RecordedProlific,
) -> None:
    """Prolific's "Managing high loads": paying calls check the wallet before each transaction, a
    429 is transient, retry with back-off. Nothing was paid, so the one pay is sent again."""
    waits: list[float] = []
    session = requests.Session()
    session.mount("https://", market)
    client = ProlificClient("token", session=session, attempts=3, sleep=waits.append)
    path = f"/api/v1/bulk-bonus-payments/{BULK}/pay/"
    market.add("POST", path, (429, "error_429_pay.json", {"Retry-After": "7"}))
    market.add("POST", path, (202, "bonus_paid.json"))

    assert "processed asynchronously" in client.pay_bonus_payment(BULK)
    assert market.calls("POST", path) == 2 and waits == [7.0]


def test_bonuses_paid_are_read_in_cents_whatever_their_order(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("GET", f"/api/v1/submissions/{SUBMISSION}/", (200, "submission_with_bonuses.json"))

    assert sorted(prolific.bonuses_paid(SUBMISSION)) == [25, 50]


def test_a_refused_bonus_setup_is_a_rejection_with_the_reason(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/submissions/bonus-payments/", (400, "error_400.json"))

    with pytest.raises(MarketRejectedError, match="did not take part") as caught:
        prolific.create_bonus_payment(STUDY, [("000000000000000000000000", Decimal("1"))])

    assert "did not take part" in caught.value.excerpt
