"""The fake Prolific lets a participant start a study only as its participant-group filters allow
them at that moment (participant groups, Prolific's API reference; fake_participants.py)."""

from __future__ import annotations

import pytest

from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.fake_participants import NotEligibleError
from annotation.markets.prolific.studies import StudySpec

PARTICIPANT = "participant00000000000001"


def active_study(market: FakeProlific, *groups: str, places: int = 3) -> str:
    client = market.client(attempts=1)
    spec = StudySpec(
        name="Stance",
        description="Stance",
        task_url="https://sw.example/w",
        places=places,
        reward_cents=50,
        minutes=5,
        completion_code="ABC",
        project=FakeProlific.PROJECT,
        internal_name="stancework job 1 hits 1-1",
        blocklist_group=groups[0] if groups else "",
        job_blocklist_group=groups[1] if len(groups) > 1 else "",
    )
    study_id = client.create_study(spec).study_id
    client.move_study(study_id, "PUBLISH")
    client.get_study(study_id)  # Prolific has it ACTIVE once read (publishing_reads)
    return study_id


def group(market: FakeProlific, name: str) -> str:
    return market.client(attempts=1).create_participant_group(FakeProlific.WORKSPACE, name, "").group_id


def test_a_participant_in_a_blocklisted_group_cannot_start_the_study_and_can_once_removed() -> None:
    market = FakeProlific()
    account, job = group(market, "Stancework blocklist"), group(market, "Stancework job 1: stopped")
    study = active_study(market, account, job)
    client = market.client(attempts=1)
    client.add_to_participant_group(job, [PARTICIPANT])

    with pytest.raises(NotEligibleError, match="excluded by the study's filters"):
        market.start(study, PARTICIPANT)
    assert market.start(study, "participant00000000000002")

    client.remove_from_participant_group(job, [PARTICIPANT])
    assert market.submissions[market.start(study, PARTICIPANT)]["status"] == "ACTIVE"


def test_the_study_excludes_both_our_groups_in_one_blocklist_filter() -> None:
    market = FakeProlific()
    account, job = group(market, "Stancework blocklist"), group(market, "Stancework job 1: stopped")

    study = active_study(market, account, job)

    assert market.studies[study]["filters"] == [
        {"filter_id": "participant_group_blocklist", "selected_values": [account, job]}
    ]


def test_a_study_not_recruiting_or_full_lets_nobody_start() -> None:
    market = FakeProlific()
    study = active_study(market, places=1)
    market.start(study, PARTICIPANT)

    with pytest.raises(NotEligibleError, match="already took part"):
        market.start(study, PARTICIPANT)
    with pytest.raises(NotEligibleError, match="no place left"):
        market.start(study, "participant00000000000002")
    market.client(attempts=1).move_study(study, "STOP")
    with pytest.raises(NotEligibleError, match="not recruiting"):
        market.start(study, "participant00000000000003")


def test_a_participant_in_a_blocklisted_group_has_no_submission_to_script_either() -> None:
    market = FakeProlific()
    job = group(market, "Stancework job 1: stopped")
    study = active_study(market, "", job)
    market.client(attempts=1).add_to_participant_group(job, [PARTICIPANT])

    with pytest.raises(NotEligibleError, match="excluded by the study's filters"):
        market.submit(study, "submission00000000000001", PARTICIPANT)
    assert "submission00000000000001" not in market.submissions
    market.submit(study, "submission00000000000002", "participant00000000000002")
    assert market.submissions["submission00000000000002"]["status"] == "AWAITING REVIEW"
