"""The MTurk adapter's HITs: a HIT type then a HIT with its external question and qualifications, nine
assignments at most, extensions, a replayed creation resolved, expiry, our qualification types.
Against botocore's Stubber: every request is checked against AWS's own API model."""

from __future__ import annotations

from decimal import Decimal

import pytest
from botocore.stub import ANY, Stubber

from annotation.ledger.tokens import idempotency_token
from annotation.markets.mturk.client import MTurkClient
from annotation.markets.mturk.spec import (
    AssignmentLimitError,
    HitSpec,
    HitTypeSpec,
    QualificationPolicy,
    SpecError,
    external_question,
)
from tests.annotation.stubbed_mturk import HIT_ID, HIT_TYPE_ID, NOW, WORKER_ID, mturk

__all__ = ["mturk"]  # the fixture, imported for pytest (it retries, unlike conftest's)


def test_publish_registers_hit_type_then_creates_hit_with_external_question(
    mturk: MTurkClient, stub: Stubber
) -> None:
    hit_type = HitTypeSpec(title="Stance", description="Judge perspectives", reward=Decimal("1.5"))
    token = idempotency_token("create_hit", "mturk", "job:1", "hit:0")
    stub.add_response(
        "create_hit_type",
        {"HITTypeId": HIT_TYPE_ID},
        {
            "Title": "Stance",
            "Description": "Judge perspectives",
            "Reward": "1.50",
            "AssignmentDurationInSeconds": 3600,
            "AutoApprovalDelayInSeconds": 259200,
            "QualificationRequirements": QualificationPolicy().requirements(),
        },
    )
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": HIT_ID, "HITTypeId": HIT_TYPE_ID}},
        {
            "HITTypeId": HIT_TYPE_ID,
            "MaxAssignments": 3,
            "LifetimeInSeconds": 7 * 86400,
            "Question": ANY,
            "RequesterAnnotation": token,
            "UniqueRequestToken": token,
        },
    )

    type_id = mturk.create_hit_type(hit_type)
    outcome = mturk.create_hit(type_id, HitSpec("https://sw.example/work/1?a=1&b=2", 3), token)

    assert (type_id, outcome.ref, outcome.replayed) == (HIT_TYPE_ID, HIT_ID, False)


def test_default_qualifications_are_the_papers_crowd() -> None:
    reqs = {r["QualificationTypeId"]: r for r in QualificationPolicy().requirements()}

    assert reqs["00000000000000000071"]["Comparator"] == "In"
    assert [v["Country"] for v in reqs["00000000000000000071"]["LocaleValues"]] == [  # type: ignore[attr-defined]
        "US",
        "GB",
        "CA",
        "NZ",
        "AU",
    ]
    assert (reqs["00000000000000000040"]["Comparator"], reqs["00000000000000000040"]["IntegerValues"]) == (
        "GreaterThan",
        [1000],
    )
    assert reqs["000000000000000000L0"]["Comparator"] == "GreaterThanOrEqualTo"
    assert reqs["000000000000000000L0"]["IntegerValues"] == [95]


def test_uk_is_refused_as_a_locale_because_mturk_wants_gb() -> None:
    with pytest.raises(SpecError, match="GB, not UK"):
        QualificationPolicy(locales=("US", "UK")).requirements()


def test_our_quiz_and_soft_block_qualifications_join_the_requirements() -> None:
    policy = QualificationPolicy(locales=(), quiz_qualification_id="QUIZ", soft_block_qualification_id="BLK")

    by_id = {r["QualificationTypeId"]: r["Comparator"] for r in policy.requirements()}

    assert by_id == {
        "00000000000000000040": "GreaterThan",
        "000000000000000000L0": "GreaterThanOrEqualTo",
        "QUIZ": "Exists",
        "BLK": "DoesNotExist",
    }


def test_a_hit_with_ten_assignments_is_refused_before_any_call() -> None:
    with pytest.raises(AssignmentLimitError, match="20% fee"):
        HitSpec("https://sw.example/work/1", 10)


def test_extending_a_hit_past_nine_assignments_is_refused(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response("get_hit", {"HIT": {"HITId": HIT_ID, "MaxAssignments": 7}}, {"HITId": HIT_ID})

    with pytest.raises(AssignmentLimitError):
        mturk.create_additional_assignments(HIT_ID, 3, "tok")


def test_extension_within_nine_passes_its_token(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response("get_hit", {"HIT": {"HITId": HIT_ID, "MaxAssignments": 3}}, {"HITId": HIT_ID})
    stub.add_response(
        "create_additional_assignments_for_hit",
        {},
        {"HITId": HIT_ID, "NumberOfAdditionalAssignments": 2, "UniqueRequestToken": "tok-extend"},
    )

    assert mturk.create_additional_assignments(HIT_ID, 2, "tok-extend").replayed is False


def test_plain_http_task_pages_are_refused() -> None:
    with pytest.raises(SpecError, match="https"):
        external_question("http://sw.example/work/1")


def test_a_replayed_hit_token_is_resolved_to_the_existing_hit(mturk: MTurkClient, stub: Stubber) -> None:
    token = idempotency_token("create_hit", "mturk", "job:1", "hit:0")
    stub.add_client_error(
        "create_hit_with_hit_type",
        "RequestError",
        f"AWS.MechanicalTurk.HitAlreadyExists: The HIT with ID {HIT_ID} already exists.",
    )
    stub.add_response(
        "get_hit",
        {"HIT": {"HITId": HIT_ID, "RequesterAnnotation": token, "MaxAssignments": 3}},
        {"HITId": HIT_ID},
    )

    outcome = mturk.create_hit(HIT_TYPE_ID, HitSpec("https://sw.example/w", 3), token)

    assert (outcome.ref, outcome.replayed) == (HIT_ID, True)


def test_expiring_a_hit_updates_its_expiration(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response("update_expiration_for_hit", {}, {"HITId": HIT_ID, "ExpireAt": NOW})

    mturk.update_expiration(HIT_ID, NOW)


def test_own_qualification_types_are_created_and_granted(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response(
        "create_qualification_type",
        {"QualificationType": {"QualificationTypeId": "QUALQUIZ"}},
        {"Name": "Stancework quiz", "Description": "Passed", "QualificationTypeStatus": "Active"},
    )
    stub.add_response(
        "associate_qualification_with_worker",
        {},
        {
            "QualificationTypeId": "QUALQUIZ",
            "WorkerId": WORKER_ID,
            "IntegerValue": 1,
            "SendNotification": False,
        },
    )

    type_id = mturk.create_qualification_type("Stancework quiz", "Passed")
    mturk.grant_qualification(type_id, WORKER_ID)
