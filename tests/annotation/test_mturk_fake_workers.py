"""The fake MTurk's workers held to the HIT's qualification requirements, as MTurk documents them
(QualificationRequirement, CreateQualificationType; annotation/markets/mturk/fake_workers.py)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from annotation.markets.mturk.fake import FakeMTurk
from annotation.markets.mturk.fake_workers import NotAllowedError
from annotation.markets.mturk.spec import HitSpec

WORKER = "AWORKER1"


def hit_type(market: FakeMTurk, *requirements: dict[str, Any]) -> str:
    made = market.boto.create_hit_type(
        Title="Stance",
        Description="Say whether each perspective supports the claim",
        Reward="0.50",
        AssignmentDurationInSeconds=3600,
        QualificationRequirements=list(requirements),
    )
    return str(made["HITTypeId"])


def kept_out(type_id: str, guarded: str = "DiscoverPreviewAndAccept") -> dict[str, Any]:
    return {"QualificationTypeId": type_id, "Comparator": "DoesNotExist", "ActionsGuarded": guarded}


def own_type(market: FakeMTurk, name: str = "Stancework job 1: stopped") -> str:
    return market.client(attempts=1).create_qualification_type(name, "Workers stopped in job 1")


def hit_of(market: FakeMTurk, type_id: str, assignments: int = 3) -> str:
    spec = HitSpec("https://sw.example/w", assignments)
    return market.client(attempts=1).create_hit(type_id, spec, "t").ref


def test_a_worker_holding_a_does_not_exist_qualification_can_neither_find_preview_nor_accept() -> None:
    market = FakeMTurk()
    stopped = own_type(market)
    hit = hit_of(market, hit_type(market, kept_out(stopped)))
    market.client(attempts=1).grant_qualification(stopped, WORKER)

    assert [market.allowed(WORKER, hit, action) for action in ("Discover", "Preview", "Accept")] == [
        False
    ] * 3
    with pytest.raises(NotAllowedError, match="qualification requirements"):
        market.accept(hit, WORKER)
    assert market.accept(hit, "AOTHER")  # another worker takes it


def test_once_the_qualification_is_taken_back_the_worker_accepts() -> None:
    market = FakeMTurk()
    stopped = own_type(market)
    hit = hit_of(market, hit_type(market, kept_out(stopped)))
    client = market.client(attempts=1)
    client.grant_qualification(stopped, WORKER)

    client.revoke_qualification(stopped, WORKER, "let back in by staff")

    assert market.accept(hit, WORKER).startswith("ASG")
    assert market.effects["qualification granted"] == market.effects["qualification revoked"] == 1


def test_actions_guarded_accept_still_lets_the_worker_find_and_preview() -> None:
    market = FakeMTurk()
    stopped = own_type(market)
    hit = hit_of(market, hit_type(market, kept_out(stopped, "Accept")))
    market.client(attempts=1).grant_qualification(stopped, WORKER)

    assert [market.allowed(WORKER, hit, action) for action in ("Discover", "Preview", "Accept")] == [
        True,
        True,
        False,
    ]


def test_system_requirements_are_held_to_the_workers_own_values() -> None:
    market = FakeMTurk()
    locale = {
        "QualificationTypeId": "00000000000000000071",
        "Comparator": "In",
        "LocaleValues": [{"Country": "GB"}],
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    }
    hit = hit_of(market, hit_type(market, locale))
    market.worker("AFRANCE", country="FR")
    market.worker("ABRITAIN", country="GB")

    assert not market.allowed("AFRANCE", hit, "Discover") and market.allowed("ABRITAIN", hit, "Accept")


@pytest.mark.parametrize(
    ("requirement", "refusal"),
    [
        ({"Comparator": "DoesNotExist", "IntegerValues": [1]}, "takes no IntegerValues"),
        ({"Comparator": "In"}, "at least one value"),
        ({"Comparator": "GreaterThan", "IntegerValues": [1, 2]}, "exactly one value"),
        ({"Comparator": "Exists", "ActionsGuarded": "Accept", "RequiredToPreview": True}, "not both"),
    ],
)
def test_a_requirement_mturk_would_refuse_makes_no_hit_type(
    requirement: dict[str, Any], refusal: str
) -> None:
    market = FakeMTurk()
    stopped = own_type(market)

    with pytest.raises(ClientError, match=refusal):
        hit_type(market, {"QualificationTypeId": stopped, **requirement})

    assert market.hit_types == {}


def test_a_requirement_on_a_type_that_is_not_ours_is_refused() -> None:
    market = FakeMTurk()

    with pytest.raises(ClientError, match="does not exist"):
        hit_type(market, kept_out("QUAL0000000000000000000000099"))


def test_a_qualification_type_name_is_unique_among_the_requesters_types() -> None:
    """CreateQualificationType, Name: "It must be unique across all of your Qualification types"."""
    market = FakeMTurk()
    own_type(market)

    with pytest.raises(ClientError, match="already created a QualificationType with this name"):
        market.boto.create_qualification_type(
            Name="Stancework job 1: stopped", Description="again", QualificationTypeStatus="Active"
        )

    assert market.effects["qualification type created"] == 1


def test_only_the_requesters_own_types_are_granted() -> None:
    market = FakeMTurk()

    with pytest.raises(ClientError, match="not yours"):
        market.boto.associate_qualification_with_worker(
            QualificationTypeId="00000000000000000040", WorkerId=WORKER, SendNotification=False
        )


def test_a_hit_of_an_unknown_hit_type_is_refused() -> None:
    market = FakeMTurk()

    with pytest.raises(ClientError, match=r"HITType \w+ does not exist"):
        market.boto.create_hit_with_hit_type(
            HITTypeId="TYPE00000000000000000000000077",
            MaxAssignments=1,
            LifetimeInSeconds=60,
            Question="<x/>",
        )


def test_identical_hit_types_share_one_id_and_a_different_requirement_makes_another() -> None:
    market = FakeMTurk()
    stopped = own_type(market)

    assert hit_type(market) == hit_type(market)
    assert hit_type(market, kept_out(stopped)) != hit_type(market)


def test_a_worker_takes_one_assignment_of_a_hit_and_no_more_than_it_has() -> None:
    market = FakeMTurk()
    hit = hit_of(market, hit_type(market), assignments=1)
    market.accept(hit, WORKER)

    with pytest.raises(NotAllowedError, match="already took"):
        market.accept(hit, WORKER)
    with pytest.raises(NotAllowedError, match="no assignment left"):
        market.accept(hit, "AOTHER")
