"""The MTurk adapter against botocore's Stubber: every request is checked against AWS's own API model."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import ANY, Stubber

from annotation.ledger.tokens import idempotency_token
from annotation.market_interface.errors import MarketRejectedError, MarketUnavailableError
from annotation.markets.mturk.client import (
    PRODUCTION_ENDPOINT,
    SANDBOX_ENDPOINT,
    MTurkClient,
    VerificationError,
    build_boto3_client,
    mturk_closure_warning,
)
from annotation.markets.mturk.spec import (
    AssignmentLimitError,
    HitSpec,
    HitTypeSpec,
    QualificationPolicy,
    SpecError,
    external_question,
)

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


def test_assignment_listing_follows_the_paginator_over_two_pages(mturk: MTurkClient, stub: Stubber) -> None:
    first = [assignment(n) for n in range(100)]
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": first, "NextToken": "page-2", "NumResults": 100},
        {"HITId": HIT_ID, "MaxResults": 100},
    )
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": [assignment(100, "Approved")], "NumResults": 1},
        {"HITId": HIT_ID, "MaxResults": 100, "NextToken": "page-2"},
    )

    listed = list(mturk.list_assignments(HIT_ID))

    assert len(listed) == 101
    assert listed[-1].status == "Approved"
    assert listed[0].worker_id == "AWORKER0000000"


def test_a_server_fault_on_a_page_retries_that_page(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_client_error("list_assignments_for_hit", "ServiceFault", "try again", 500)
    stub.add_response("list_assignments_for_hit", {"Assignments": [assignment(1)], "NumResults": 1})

    assert [a.assignment_id for a in mturk.list_assignments(HIT_ID)] == [assignment(1)["AssignmentId"]]


def test_approve_sends_the_feedback(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response(
        "approve_assignment", {}, {"AssignmentId": ASSIGNMENT_ID, "RequesterFeedback": "Thank you"}
    )

    assert mturk.approve(ASSIGNMENT_ID, "Thank you").replayed is False


def test_approving_twice_is_verified_by_reading_not_repeated(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_client_error(
        "approve_assignment",
        "RequestError",
        "This operation can be called with a status of: Submitted",
    )
    stub.add_response(
        "get_assignment",
        {"Assignment": assignment(1, "Approved")},
        {"AssignmentId": ASSIGNMENT_ID},
    )

    assert mturk.approve(ASSIGNMENT_ID).replayed is True


def test_a_refused_approval_of_a_rejected_assignment_is_an_error(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_client_error("approve_assignment", "RequestError", "status of: Submitted")
    stub.add_response("get_assignment", {"Assignment": assignment(1, "Rejected")})

    with pytest.raises(MarketRejectedError):
        mturk.approve(ASSIGNMENT_ID)


def test_reject_carries_the_feedback_the_worker_reads(mturk: MTurkClient, stub: Stubber) -> None:
    stub.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": ASSIGNMENT_ID, "RequesterFeedback": "Failed 3 of 3 checks"},
    )

    mturk.reject(ASSIGNMENT_ID, "Failed 3 of 3 checks")


def test_reject_without_feedback_is_refused_before_any_call(mturk: MTurkClient) -> None:
    with pytest.raises(MarketRejectedError, match="feedback"):
        mturk.reject(ASSIGNMENT_ID, "  ")


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


def test_the_mturk_market_reads_identity_and_sends_workers_back_to_mturk() -> None:
    from annotation.market_interface.base import external_identity
    from annotation.market_interface.registry import get_market

    market = get_market("mturk")
    params = {
        "assignmentId": "ASG1",
        "hitId": HIT_ID,
        "workerId": WORKER_ID,
        "turkSubmitTo": "https://www.mturk.com",
    }
    identity = external_identity(market, params)
    preview = external_identity(market, {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": HIT_ID})

    assert identity is not None and (identity.worker_id, identity.assignment_id) == (WORKER_ID, "ASG1")
    assert preview is not None and preview.preview
    handoff = market.after_submit(None, identity)  # type: ignore[arg-type]
    assert handoff is not None
    assert (handoff.url, dict(handoff.fields)) == (
        "https://www.mturk.com/mturk/externalSubmit",
        {"assignmentId": "ASG1"},
    )
    assert external_identity(market, {"PROLIFIC_PID": "p", "STUDY_ID": "s", "SESSION_ID": "x"}) is None


def test_a_previewed_hit_is_never_handed_back_to_mturk_even_with_a_return_address() -> None:
    """The identity's ids are read as the page read them: a preview stays a preview, and MTurk
    takes no assignment ASSIGNMENT_ID_NOT_AVAILABLE."""
    from annotation.market_interface.base import WorkerIdentityError, external_identity
    from annotation.market_interface.registry import get_market

    market = get_market("mturk")
    params = {
        "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE",
        "hitId": HIT_ID,
        "turkSubmitTo": "https://www.mturk.com",
    }
    preview = external_identity(market, params)
    assert preview is not None and preview.preview

    with pytest.raises(WorkerIdentityError, match="only an accepted MTurk assignment"):
        market.after_submit(None, preview)  # type: ignore[arg-type]
