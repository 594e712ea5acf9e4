"""The MTurk adapter's review: assignments listed page by page, approved and rejected with feedback,
a second approval verified by reading.
Against botocore's Stubber: every request is checked against AWS's own API model."""

from __future__ import annotations

import pytest
from botocore.stub import Stubber

from annotation.market_interface.errors import MarketRejectedError
from annotation.markets.mturk.client import MTurkClient
from tests.annotation.stubbed_mturk import ASSIGNMENT_ID, HIT_ID, assignment, mturk

__all__ = ["mturk"]  # the fixture, imported for pytest (it retries, unlike conftest's)


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
