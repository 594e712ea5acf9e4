"""The Prolific client against recorded responses (tests/fixtures/prolific), served by a fake transport."""

from __future__ import annotations

import json
from collections import deque
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from requests.adapters import BaseAdapter

from annotation.providers.market_errors import (
    MarketAuthError,
    MarketConfigError,
    MarketRejectedError,
    MarketUnavailableError,
    PaymentOutcomeUnclearError,
)
from annotation.providers.prolific import (
    ProlificClient,
    StudySpec,
    completion_redirect,
    external_study_url,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "prolific"
STUDY = "60f6acb180a7b59ac0621f9e"
SUBMISSION = "60d9aadeb86739de712faee0"
BULK = "621014cb8e9e0f81e387021f"
Reply = tuple[int, str] | Exception


class RecordedProlific(BaseAdapter):
    """Answers each (method, path) from a queue of recorded replies and keeps every request."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: dict[tuple[str, str], deque[Reply]] = {}
        self.requests: list[tuple[str, str, Any]] = []

    def add(self, method: str, path: str, reply: Reply) -> None:
        self.replies.setdefault((method, path), deque()).append(reply)

    def calls(self, method: str, path: str) -> int:
        return sum(1 for m, url, _ in self.requests if m == method and urlsplit(url).path == path)

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        parts = urlsplit(str(request.url))
        body = json.loads(request.body) if request.body else None
        self.requests.append((str(request.method), str(request.url), body))
        queue = self.replies.get((str(request.method), parts.path))
        if not queue:
            raise AssertionError(f"unexpected {request.method} {request.url}")
        reply = queue.popleft()
        if isinstance(reply, Exception):
            raise reply
        status, fixture = reply
        response = requests.Response()
        response.status_code = status
        response._content = (FIXTURES / fixture).read_bytes() if fixture else b""
        response.headers["Content-Type"] = "application/json"
        response.url = str(request.url)
        response.request = request
        return response

    def close(self) -> None:
        pass


@pytest.fixture
def market() -> RecordedProlific:
    return RecordedProlific()


@pytest.fixture
def prolific(market: RecordedProlific) -> ProlificClient:
    session = requests.Session()
    session.mount("https://", market)
    return ProlificClient("secret-token", session=session, sleep=lambda seconds: None)


def spec() -> StudySpec:
    return StudySpec(
        name="Stance verification, batch 1",
        internal_name="job-12-batch-1",
        description="Read a claim and say whether each perspective supports or undermines it.",
        task_url="https://stancework.example/work/12/",
        places=3,
        reward_cents=150,
        minutes=12,
        completion_code="C1A2B3C4",
    )


def test_external_study_url_carries_the_three_placeholders_literally() -> None:
    assert external_study_url("https://sw.example/work/12/?lang=en") == (
        "https://sw.example/work/12/?lang=en&PROLIFIC_PID={{%PROLIFIC_PID%}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )


def test_completion_redirect_goes_to_prolific_with_the_code() -> None:
    assert completion_redirect("C1A2B3C4") == "https://app.prolific.com/submissions/complete?cc=C1A2B3C4"


def test_create_study_sends_a_draft_with_token_auth(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/studies/", (201, "study_created.json"))

    study = prolific.create_study(spec())

    body = market.requests[0][2]
    assert (study.study_id, study.status, study.places) == (STUDY, "UNPUBLISHED", 3)
    assert body["prolific_id_option"] == "url_parameters"
    assert body["completion_codes"][0]["code"] == "C1A2B3C4"
    assert body["external_study_url"].endswith("SESSION_ID={{%SESSION_ID%}}")
    assert prolific.session.headers["Authorization"] == "Token secret-token"


def test_publish_pause_and_stop_are_transitions(prolific: ProlificClient, market: RecordedProlific) -> None:
    path = f"/api/v1/studies/{STUDY}/transition/"
    for fixture in ("study_active.json", "study_paused.json", "study_completed.json"):
        market.add("POST", path, (200, fixture))

    statuses = [prolific.publish_study(STUDY).status, prolific.pause_study(STUDY).status]
    statuses.append(prolific.stop_study(STUDY).status)

    assert statuses == ["ACTIVE", "PAUSED", "COMPLETED"]
    assert [body["action"] for _, _, body in market.requests] == ["PUBLISH", "PAUSE", "STOP"]


def test_an_unknown_study_action_is_refused_before_any_call(prolific: ProlificClient) -> None:
    with pytest.raises(MarketRejectedError, match="unknown study action"):
        prolific.transition_study(STUDY, "DELETE")


def test_submissions_are_listed_across_pages(prolific: ProlificClient, market: RecordedProlific) -> None:
    path = f"/api/v1/studies/{STUDY}/submissions/"
    market.add("GET", path, (200, "submissions_page1.json"))
    market.add("GET", path, (200, "submissions_page2.json"))

    listed = list(prolific.list_submissions(STUDY))

    assert [s.status for s in listed] == ["AWAITING REVIEW", "ACTIVE", "RETURNED"]
    assert listed[0].study_code == "C1A2B3C4"
    assert market.requests[1][1].endswith("?page=2")


def test_a_503_on_a_read_is_retried(prolific: ProlificClient, market: RecordedProlific) -> None:
    path = f"/api/v1/submissions/{SUBMISSION}/"
    market.add("GET", path, (503, ""))
    market.add("GET", path, (200, "submission_with_bonus.json"))

    assert prolific.bonuses_paid(SUBMISSION) == (25,)


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


def test_a_short_rejection_message_is_refused_before_any_call(prolific: ProlificClient) -> None:
    with pytest.raises(MarketRejectedError, match="100"):
        prolific.reject_submission(SUBMISSION, "bad work", "LOW_EFFORT")


def test_bonus_setup_sends_csv_lines_in_the_study_currency(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/submissions/bonus-payments/", (201, "bonus_created.json"))

    bulk = prolific.create_bonus_payment(
        STUDY, [(SUBMISSION, Decimal("0.25")), ("60d9aadeb86739de712faee1", Decimal("0.375"))]
    )

    assert (bulk.bulk_id, bulk.total) == (BULK, Decimal("0.84"))
    assert market.requests[0][2] == {
        "study_id": STUDY,
        "csv_bonuses": f"{SUBMISSION},0.25\n60d9aadeb86739de712faee1,0.38",
    }


def test_paying_a_bonus_is_one_call(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("POST", f"/api/v1/bulk-bonus-payments/{BULK}/pay/", (202, "bonus_paid.json"))

    assert "processed asynchronously" in prolific.pay_bonus_payment(BULK)


@pytest.mark.parametrize(
    "reply", [requests.ReadTimeout("read timed out"), (502, ""), (429, "")], ids=["timeout", "502", "429"]
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


def test_an_unclear_pay_is_resolved_by_reading_the_submission(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", f"/api/v1/bulk-bonus-payments/{BULK}/pay/", requests.ReadTimeout("lost"))
    market.add("GET", f"/api/v1/submissions/{SUBMISSION}/", (200, "submission_without_bonus.json"))
    market.add("GET", f"/api/v1/submissions/{SUBMISSION}/", (200, "submission_with_bonus.json"))

    with pytest.raises(PaymentOutcomeUnclearError):
        prolific.pay_bonus_payment(BULK)
    not_yet = prolific.bonuses_paid(SUBMISSION)
    later = prolific.bonuses_paid(SUBMISSION)

    assert (not_yet, later) == ((), (25,))


def test_a_refused_bonus_setup_is_a_rejection_with_the_reason(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/submissions/bonus-payments/", (400, "error_400.json"))

    with pytest.raises(MarketRejectedError) as caught:
        prolific.create_bonus_payment(STUDY, [("000000000000000000000000", Decimal("1"))])

    assert "did not take part" in caught.value.excerpt


def test_a_lost_study_creation_is_not_retried(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("POST", "/api/v1/studies/", requests.ConnectionError("reset"))

    with pytest.raises(MarketUnavailableError):
        prolific.create_study(spec())

    assert market.calls("POST", "/api/v1/studies/") == 1


def test_a_refused_token_is_an_auth_error(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("GET", f"/api/v1/studies/{STUDY}/", (401, ""))

    with pytest.raises(MarketAuthError):
        prolific.get_study(STUDY)


def test_balance_is_read_from_the_workspace(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("GET", "/api/v1/workspaces/ws1/balance/", (200, "balance.json"))

    balance = prolific.get_balance("ws1")

    assert (balance.currency, balance.available_cents) == ("GBP", 21000)


def test_a_client_without_a_token_refuses_to_start() -> None:
    with pytest.raises(MarketConfigError):
        ProlificClient("")
