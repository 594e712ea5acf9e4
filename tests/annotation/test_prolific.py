"""The Prolific client against recorded responses (tests/fixtures/prolific), served by a fake transport
that holds every request and every recorded answer to Prolific's published schema
(annotation/markets/prolific/schema.py)."""

from __future__ import annotations

import json
from collections import deque
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from requests.adapters import BaseAdapter

from annotation.market_interface.errors import (
    MarketAuthError,
    MarketConfigError,
    MarketRejectedError,
    MarketUnavailableError,
    PaymentOutcomeUnclearError,
)
from annotation.markets.prolific.client import ProlificClient
from annotation.markets.prolific.schema import check_request, check_response
from annotation.markets.prolific.studies import (
    StudySpec,
    StudyTransitionError,
    completion_redirect,
    external_study_url,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "prolific"
STUDY = "60f6acb180a7b59ac0621f9e"
SUBMISSION = "60d9aadeb86739de712faee0"
BULK = "621014cb8e9e0f81e387021f"
PROJECT = "62fce6fff0a78eb4f3ebc09c"
WORKSPACE = "644aaabfaf6bbc363b9d47c6"
GROUP = "6429b0ea05b2a24cac83c3a4"
# (status, fixture file) or (status, fixture file, headers), or an exception the transport raises.
Reply = tuple[int, str] | tuple[int, str, dict[str, str]] | Exception


class RecordedProlific(BaseAdapter):
    """Answers each (method, path) from a queue of recorded replies and keeps every request.

    Each request must be one Prolific documents, and each recorded answer must match the
    documented response of the endpoint it answers: a SchemaViolation fails the test otherwise.
    """

    def __init__(self) -> None:
        super().__init__()
        self.replies: dict[tuple[str, str], deque[Reply]] = {}
        self.requests: list[tuple[str, str, Any]] = []

    def add(self, method: str, path: str, reply: Reply) -> None:
        self.replies.setdefault((method, path), deque()).append(reply)

    def workspace(self, times: int, project: str = "62fce6fff0a78eb4f3ebc09c") -> None:
        """The project's workspace and its balance (in GBP), read before each of `times` spending calls."""
        for _ in range(times):
            self.add("GET", f"/api/v1/projects/{project}/", (200, "project.json"))
            self.add("GET", "/api/v1/workspaces/644aaabfaf6bbc363b9d47c6/balance/", (200, "balance.json"))

    def calls(self, method: str, path: str) -> int:
        return sum(1 for m, url, _ in self.requests if m == method and urlsplit(url).path == path)

    def queries(self, method: str, path: str) -> list[dict[str, str]]:
        found = [url for m, url, _ in self.requests if m == method and urlsplit(url).path == path]
        return [{k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()} for url in found]

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        parts = urlsplit(str(request.url))
        body = json.loads(request.body) if request.body else None
        endpoint = check_request(str(request.method), str(request.url), body)
        self.requests.append((str(request.method), str(request.url), body))
        queue = self.replies.get((str(request.method), parts.path))
        if not queue:
            raise AssertionError(f"unexpected {request.method} {request.url}")
        reply = queue.popleft()
        if isinstance(reply, Exception):
            raise reply
        status, fixture, *rest = reply
        headers: dict[str, str] = rest[0] if rest else {}
        content = (FIXTURES / fixture).read_bytes() if fixture else b""
        check_response(endpoint, status, json.loads(content) if content else None)
        response = requests.Response()
        response.status_code = status
        response._content = content
        response.headers["Content-Type"] = "application/json"
        response.headers.update(headers)
        response.url = str(request.url)
        response.request = request
        return response

    def close(self) -> None:
        pass


@pytest.fixture
def market() -> RecordedProlific:
    return RecordedProlific()


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def prolific(market: RecordedProlific, waits: list[float]) -> ProlificClient:
    session = requests.Session()
    session.mount("https://", market)
    return ProlificClient("secret-token", session=session, sleep=waits.append, page_size=3)


def spec(**changes: Any) -> StudySpec:
    fields: dict[str, Any] = {
        "name": "Stance verification, batch 1",
        "internal_name": "job-12-batch-1",
        "description": "Read a claim and say whether each perspective supports or undermines it.",
        "task_url": "https://stancework.example/work/12/",
        "places": 3,
        "reward_cents": 150,
        "minutes": 12,
        "completion_code": "C1A2B3C4",
        "project": PROJECT,
        "blocklist_group": GROUP,
    }
    return StudySpec(**{**fields, **changes})


def test_external_study_url_carries_the_three_placeholders_literally() -> None:
    assert external_study_url("https://sw.example/work/12/?lang=en") == (
        "https://sw.example/work/12/?lang=en&PROLIFIC_PID={{%PROLIFIC_PID%}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )


def test_completion_redirect_goes_to_prolific_with_the_code() -> None:
    assert completion_redirect("C1A2B3C4") == "https://app.prolific.com/submissions/complete?cc=C1A2B3C4"


def test_a_study_is_created_in_the_project_with_our_blocklist_and_token_auth(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/studies/", (201, "study_created.json"))

    study = prolific.create_study(spec())

    body = market.requests[0][2]
    assert (study.study_id, study.status, study.places) == (STUDY, "UNPUBLISHED", 3)
    assert body["project"] == PROJECT
    assert body["filters"] == [{"filter_id": "participant_group_blocklist", "selected_values": [GROUP]}]
    assert (body["prolific_id_option"], body["reward"]) == ("url_parameters", 150)
    assert body["completion_codes"][0]["code"] == "C1A2B3C4"
    assert body["external_study_url"].endswith("SESSION_ID={{%SESSION_ID%}}")
    assert prolific.session.headers["Authorization"] == "Token secret-token"


def test_a_study_without_a_project_is_refused_before_any_call(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    with pytest.raises(MarketRejectedError, match="project"):
        prolific.create_study(spec(project=""))

    assert market.requests == []


@pytest.mark.parametrize(
    ("action", "before", "after"),
    [
        ("PUBLISH", "study_unpublished.json", "study_active.json"),
        ("PAUSE", "study_active.json", "study_paused.json"),
        ("START", "study_paused.json", "study_active.json"),
        ("STOP", "study_active.json", "study_completed.json"),
        ("STOP", "study_paused.json", "study_completed.json"),
    ],
)
def test_a_study_is_moved_only_from_a_status_prolific_accepts_the_action_in(
    prolific: ProlificClient, market: RecordedProlific, action: str, before: str, after: str
) -> None:
    market.add("GET", f"/api/v1/studies/{STUDY}/", (200, before))
    market.add("POST", f"/api/v1/studies/{STUDY}/transition/", (200, after))

    moved = prolific.move_study(STUDY, action)

    assert moved.status == json.loads((FIXTURES / after).read_text())["status"]
    assert market.requests[1][2] == {"action": action}


@pytest.mark.parametrize(
    ("action", "status_fixture"),
    [
        ("STOP", "study_unpublished.json"),
        ("STOP", "study_completed.json"),
        ("PUBLISH", "study_publishing.json"),
        ("PAUSE", "study_paused.json"),
        ("START", "study_active.json"),
    ],
)
def test_a_study_already_where_the_action_leads_is_left_be(
    prolific: ProlificClient, market: RecordedProlific, action: str, status_fixture: str
) -> None:
    market.add("GET", f"/api/v1/studies/{STUDY}/", (200, status_fixture))

    prolific.move_study(STUDY, action)

    assert market.calls("POST", f"/api/v1/studies/{STUDY}/transition/") == 0


@pytest.mark.parametrize(
    ("action", "status_fixture"), [("STOP", "study_publishing.json"), ("START", "study_completed.json")]
)
def test_a_transition_prolific_would_refuse_is_not_sent(
    prolific: ProlificClient, market: RecordedProlific, action: str, status_fixture: str
) -> None:
    market.add("GET", f"/api/v1/studies/{STUDY}/", (200, status_fixture))

    with pytest.raises(StudyTransitionError, match=f"accepts {action} only from"):
        prolific.move_study(STUDY, action)

    assert market.calls("POST", f"/api/v1/studies/{STUDY}/transition/") == 0


def test_an_invalid_transition_answered_400_names_prolifics_reason(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", f"/api/v1/studies/{STUDY}/transition/", (400, "error_invalid_transition.json"))

    with pytest.raises(MarketRejectedError, match="Cannot transition a study from UNPUBLISHED"):
        prolific.transition_study(STUDY, "STOP")


def test_an_unknown_study_action_is_refused_before_any_call(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    with pytest.raises(MarketRejectedError, match="unknown study action"):
        prolific.transition_study(STUDY, "DELETE")
    assert market.requests == []


def test_every_page_of_submissions_is_read_by_limit_and_offset_until_the_count(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    path = f"/api/v1/studies/{STUDY}/submissions/"
    market.add("GET", path, (200, "submissions_page1.json"))
    market.add("GET", path, (200, "submissions_page2.json"))

    listed = list(prolific.list_submissions(STUDY))

    assert [s.status for s in listed] == ["AWAITING REVIEW", "ACTIVE", "RETURNED", "RESERVED", "SCREENED OUT"]
    assert listed[0].study_code == "C1A2B3C4"
    assert market.queries("GET", path) == [{"limit": "3", "offset": "0"}, {"limit": "3", "offset": "3"}]


def test_pages_shorter_than_asked_are_followed_while_the_count_says_there_is_more(
    market: RecordedProlific,
) -> None:
    session = requests.Session()
    session.mount("https://", market)
    client = ProlificClient("t", session=session, page_size=10)  # Prolific serves 3 a page here
    path = f"/api/v1/studies/{STUDY}/submissions/"
    market.add("GET", path, (200, "submissions_page1.json"))
    market.add("GET", path, (200, "submissions_page2.json"))

    listed = list(client.list_submissions(STUDY))

    assert len(listed) == 5
    assert [q["offset"] for q in market.queries("GET", path)] == ["0", "3"]


def test_a_503_on_a_read_is_retried(prolific: ProlificClient, market: RecordedProlific) -> None:
    path = f"/api/v1/submissions/{SUBMISSION}/"
    market.add("GET", path, (503, ""))
    market.add("GET", path, (200, "submission_with_bonus.json"))

    assert prolific.bonuses_paid(SUBMISSION) == (25,)


def test_a_429_on_a_read_waits_as_long_as_prolific_asks_then_reads_again(
    prolific: ProlificClient, market: RecordedProlific, waits: list[float]
) -> None:
    path = f"/api/v1/submissions/{SUBMISSION}/"
    market.add("GET", path, (429, "error_429.json", {"Retry-After": "7"}))
    market.add("GET", path, (200, "submission_without_bonus.json"))

    assert prolific.bonuses_paid(SUBMISSION) == ()
    assert waits == [7.0]


def test_a_429_that_outlasts_the_retries_is_a_transient_error_with_prolifics_words(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    path = f"/api/v1/submissions/{SUBMISSION}/"
    for _ in range(3):
        market.add("GET", path, (429, "error_429.json"))

    with pytest.raises(MarketUnavailableError, match="Too many requests"):
        prolific.get_submission(SUBMISSION)


def test_a_422_is_a_refusal_that_names_the_field_and_is_not_retried(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("POST", "/api/v1/studies/", (422, "error_422.json"))

    with pytest.raises(MarketRejectedError, match="reward: The reward is below the minimum hourly rate"):
        prolific.create_study(spec())

    assert market.calls("POST", "/api/v1/studies/") == 1


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


def test_a_lost_study_creation_is_not_retried(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("POST", "/api/v1/studies/", requests.ConnectionError("reset"))

    with pytest.raises(MarketUnavailableError):
        prolific.create_study(spec())

    assert market.calls("POST", "/api/v1/studies/") == 1


def test_a_refused_token_is_an_auth_error(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("GET", f"/api/v1/studies/{STUDY}/", (401, ""))

    with pytest.raises(MarketAuthError):
        prolific.get_study(STUDY)


def test_the_project_names_its_workspace_and_the_balance_is_in_cents(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("GET", f"/api/v1/projects/{PROJECT}/", (200, "project.json"))
    market.add("GET", f"/api/v1/workspaces/{WORKSPACE}/balance/", (200, "balance.json"))

    project = prolific.get_project(PROJECT)
    balance = prolific.get_balance(project.workspace_id)

    assert project.workspace_id == WORKSPACE
    assert (balance.currency, balance.available_cents) == ("GBP", 21000)


def test_participant_groups_are_listed_by_workspace_created_and_added_to(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    groups, members = "/api/v1/participant-groups/", f"/api/v1/participant-groups/{GROUP}/participants/"
    market.add("GET", groups, (200, "participant_groups_empty.json"))
    market.add("POST", groups, (201, "participant_group_created.json"))
    market.add("POST", members, (200, "participant_group_members.json"))

    assert list(prolific.list_participant_groups(WORKSPACE)) == []
    created = prolific.create_participant_group(WORKSPACE, "Stancework blocklist", "blocked")
    prolific.add_to_participant_group(created.group_id, ["60bf9310e8dec401be6e9615"])

    assert market.queries("GET", groups) == [{"workspace_id": WORKSPACE, "limit": "3", "offset": "0"}]
    assert market.requests[1][2] == {
        "name": "Stancework blocklist",
        "workspace_id": WORKSPACE,
        "description": "blocked",
    }
    assert market.requests[2][2] == {"participant_ids": ["60bf9310e8dec401be6e9615"]}


def test_a_client_without_a_token_refuses_to_start() -> None:
    with pytest.raises(MarketConfigError):
        ProlificClient("")
