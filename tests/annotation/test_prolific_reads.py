"""The Prolific client's reads and errors: every page read, a 503 or 429 retried as Prolific asks, a 422
and a refused token not retried. Against the recorded Prolific (tests/annotation/recorded_prolific.py)."""

from __future__ import annotations

import pytest
import requests

from annotation.market_interface.errors import (
    MarketAuthError,
    MarketConfigError,
    MarketRejectedError,
    MarketUnavailableError,
)
from annotation.markets.prolific.client import ProlificClient
from tests.annotation.recorded_prolific import STUDY, SUBMISSION, RecordedProlific, spec


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


def test_a_refused_token_is_an_auth_error(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("GET", f"/api/v1/studies/{STUDY}/", (401, ""))

    with pytest.raises(MarketAuthError):
        prolific.get_study(STUDY)


def test_a_client_without_a_token_refuses_to_start() -> None:
    with pytest.raises(MarketConfigError):
        ProlificClient("")
