"""The fake MTurk beside its client: held to AWS's MTurk service model (which botocore ships) on the
way in and on the way out, and keeping the rules of MTurk that the platform leans on."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ClientError, ParamValidationError

from annotation.market_interface.errors import MarketRejectedError, MarketUnavailableError
from annotation.markets.mturk.fake import FakeMTurk
from annotation.markets.mturk.spec import HitSpec

HIT, ASSIGNMENT, WORKER = "HIT000000000000000000000000001", "ASG1", "AWORKER1"


def hit_type(market: FakeMTurk) -> str:
    """A HIT type made at the fake (MTurk refuses a HIT of a type it never made)."""
    made = market.boto.create_hit_type(
        Title="Stance", Description="Stance", Reward="0.50", AssignmentDurationInSeconds=3600
    )
    return str(made["HITTypeId"])


def approved(market: FakeMTurk) -> FakeMTurk:
    market.submit(HIT, ASSIGNMENT, WORKER, status="Approved")
    return market


def test_a_request_outside_the_service_model_never_reaches_the_market() -> None:
    market = FakeMTurk()

    with pytest.raises(ParamValidationError, match="AssignmentId"):
        market.boto.send_bonus(WorkerId=WORKER, BonusAmount="0.50", Reason="x", UniqueRequestToken="t")

    assert market.calls == {}


def test_an_answer_outside_the_service_model_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    market = FakeMTurk()
    monkeypatch.setattr(market, "_GetAccountBalance", lambda p: {"AvailableBalance": 10000})

    with pytest.raises(AssertionError, match="off AWS's model"):
        market.client(attempts=1).get_account_balance()


def test_a_reused_bonus_token_pays_once_and_reads_as_replayed() -> None:
    market = approved(FakeMTurk())
    client = market.client(attempts=1)

    first = client.send_bonus(WORKER, ASSIGNMENT, Decimal("0.25"), "Correct answers", "tok-1")
    second = client.send_bonus(WORKER, ASSIGNMENT, Decimal("0.25"), "Correct answers", "tok-1")

    assert (first.replayed, second.replayed) == (False, True)
    assert len(market.bonuses) == 1 and market.calls["SendBonus"] == 2


def test_a_token_expires_after_24_hours_and_a_resend_then_pays_again() -> None:
    """Service model, UniqueRequestToken (CreateHITWithHITType): "The unique token expires after 24
    hours. Subsequent calls using the same UniqueRequestToken made after the 24 hour limit could
    create duplicate HITs"; the same token on SendBonus then grants a second bonus."""
    market = approved(FakeMTurk())
    client = market.client(attempts=1)
    client.send_bonus(WORKER, ASSIGNMENT, Decimal("0.25"), "Correct answers", "tok-1")

    market.advance(hours=23.9)
    within = client.send_bonus(WORKER, ASSIGNMENT, Decimal("0.25"), "Correct answers", "tok-1")
    market.advance(hours=0.2)
    after = client.send_bonus(WORKER, ASSIGNMENT, Decimal("0.25"), "Correct answers", "tok-1")

    assert (within.replayed, after.replayed) == (True, False)
    assert len(market.bonuses) == 2


def test_a_hit_token_past_24_hours_makes_a_second_hit() -> None:
    market = FakeMTurk()
    client = market.client(attempts=1)
    first = client.create_hit(hit_type(market), HitSpec("https://sw.example/w", 3), "tok-hit")

    market.advance(hours=25)
    second = client.create_hit(hit_type(market), HitSpec("https://sw.example/w", 3), "tok-hit")

    assert first.ref != second.ref and len(market.hits) == 2


def test_more_than_100_results_a_page_is_refused_as_the_service_model_allows_at_most_100() -> None:
    """Service model, ResultSize: an integer from 1 to 100 (botocore checks the minimum only)."""
    market = FakeMTurk()

    with pytest.raises(ClientError, match="MaxResults must be at most 100"):
        market.boto.list_hits(MaxResults=101)


def test_a_lost_hit_reply_is_retried_with_its_token_and_finds_the_one_hit() -> None:
    market = FakeMTurk()
    market.lose_reply("CreateHITWithHITType")
    client = market.client(attempts=2, sleep=lambda s: None)

    outcome = client.create_hit(hit_type(market), HitSpec("https://sw.example/w", 3), "tok-hit")

    assert outcome.replayed and list(market.hits) == [outcome.ref]
    assert market.hits[outcome.ref]["RequesterAnnotation"] == "tok-hit"


def test_a_bonus_for_another_workers_assignment_is_refused() -> None:
    client = approved(FakeMTurk()).client(attempts=1)

    with pytest.raises(MarketRejectedError, match="not done by worker"):
        client.send_bonus("AOTHER", ASSIGNMENT, Decimal("0.25"), "Correct answers", "tok-2")


def test_only_submitted_work_is_reviewed() -> None:
    market = approved(FakeMTurk())

    with pytest.raises(MarketRejectedError, match="Submitted"):
        market.client(attempts=1).reject(ASSIGNMENT, "The worked examples were not answered.")

    assert market.assignments[ASSIGNMENT]["AssignmentStatus"] == "Approved"


def test_a_hit_under_ten_assignments_is_never_extended_to_ten() -> None:
    market = FakeMTurk()
    client = market.client(attempts=1)
    hit = client.create_hit(hit_type(market), HitSpec("https://sw.example/w", 9), "tok-9").ref

    with pytest.raises(ClientError, match="fewer than 10"):
        market.boto.create_additional_assignments_for_hit(
            HITId=hit, NumberOfAdditionalAssignments=1, UniqueRequestToken="tok-more"
        )

    assert market.hits[hit]["MaxAssignments"] == 9


def test_lists_come_in_pages_as_at_mturk() -> None:
    market = FakeMTurk()
    client = market.client(attempts=1)
    kind = hit_type(market)
    made = {client.create_hit(kind, HitSpec("https://sw.example/w", 1), f"tok-{n}").ref for n in range(205)}

    assert {hit.hit_id for hit in client.list_hits()} == made
    assert market.calls["ListHITs"] == 3  # 100 a page


def test_expiring_a_hit_in_the_past_makes_it_reviewable() -> None:
    market = FakeMTurk()
    client = market.client(attempts=1)
    hit = client.create_hit(hit_type(market), HitSpec("https://sw.example/w", 3), "tok-x").ref

    client.update_expiration(hit, dt.datetime(2015, 1, 1, tzinfo=dt.UTC))

    assert client.get_hit(hit).status == "Reviewable"


def test_faults_on_demand() -> None:
    market = approved(FakeMTurk())
    client = market.client(attempts=1)
    market.throttle("GetAssignment")
    with pytest.raises(MarketUnavailableError, match="Rate exceeded"):
        client.get_assignment(ASSIGNMENT)
    assert client.get_assignment(ASSIGNMENT).status == "Approved"  # once only

    market.down = True
    with pytest.raises(MarketUnavailableError):
        client.get_assignment(ASSIGNMENT)


def test_the_paying_hook_hears_each_paying_call_before_it_acts() -> None:
    heard: list[tuple[str, Any]] = []
    market = FakeMTurk(on_paying=lambda op, params: heard.append((op, len(market.bonuses))))
    approved(market).client(attempts=1).send_bonus(WORKER, ASSIGNMENT, Decimal("0.25"), "Correct", "tok-3")

    assert heard == [("SendBonus", 0)]
