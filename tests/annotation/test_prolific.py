"""The Prolific client's studies: the URL and redirect it gives workers, a study created in our project
with our blocklist, moved only where Prolific allows, a lost creation never sent twice. Against the
recorded Prolific (tests/annotation/recorded_prolific.py)."""

from __future__ import annotations

import json

import pytest
import requests

from annotation.market_interface.errors import MarketRejectedError, MarketUnavailableError
from annotation.markets.prolific.client import ProlificClient
from annotation.markets.prolific.studies import StudyTransitionError, completion_redirect, external_study_url
from tests.annotation.recorded_prolific import FIXTURES, GROUP, PROJECT, STUDY, RecordedProlific, spec


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


def test_a_lost_study_creation_is_not_retried(prolific: ProlificClient, market: RecordedProlific) -> None:
    market.add("POST", "/api/v1/studies/", requests.ConnectionError("reset"))

    with pytest.raises(MarketUnavailableError):
        prolific.create_study(spec())

    assert market.calls("POST", "/api/v1/studies/") == 1
