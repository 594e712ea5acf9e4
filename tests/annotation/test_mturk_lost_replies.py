"""MTurk's calls that no UniqueRequestToken makes idempotent (approve, reject): sent once, and a lost
reply decided by reading the assignment, never by sending the review again."""

from __future__ import annotations

import pytest

from annotation.market_interface.errors import MarketUnavailableError
from tests.annotation.fake_markets import Guard, GuardedMTurk

pytestmark = pytest.mark.django_db  # the fake's guard reads the ledger

HIT, WORKER = "HIT000000000000000000000000001", "AWORKER1"


@pytest.mark.parametrize(("review", "final"), [("approve", "Approved"), ("reject", "Rejected")])
def test_a_lost_review_reply_is_read_back_and_never_sent_twice(review: str, final: str) -> None:
    fake = GuardedMTurk(Guard())
    fake.submit(HIT, "ASG1", WORKER)
    operation = "ApproveAssignment" if review == "approve" else "RejectAssignment"
    fake.lost.add(operation)
    client = fake.client(attempts=3, sleep=lambda s: None)

    outcome = getattr(client, review)("ASG1", "The gold answers were all missed in this HIT.")

    assert outcome.replayed
    assert fake.effects == {final: 1}
    assert fake.calls[operation] == 1  # read back, not sent again
    assert fake.assignments["ASG1"]["AssignmentStatus"] == final


def test_a_lost_review_the_market_did_not_take_is_raised_for_the_ledger_to_decide_later() -> None:
    fake = GuardedMTurk(Guard())
    fake.submit(HIT, "ASG1", WORKER)
    client = fake.client(attempts=3, sleep=lambda s: None)
    fake.boto.meta.events.register_first("before-call.mturk.ApproveAssignment", _unreachable)

    with pytest.raises(MarketUnavailableError):
        client.approve("ASG1")

    assert fake.effects == {} and fake.assignments["ASG1"]["AssignmentStatus"] == "Submitted"


def _unreachable(**kwargs: object) -> None:
    from botocore.exceptions import EndpointConnectionError

    raise EndpointConnectionError(endpoint_url="https://fake")


def test_unblocking_an_mturk_worker_takes_the_soft_block_qualification_back(settings: object) -> None:
    from annotation.models import Worker
    from annotation.work.records import unblock_worker
    from tests.annotation.market_clients import market_clients

    settings.MTURK_SOFT_BLOCK_QUALIFICATION_ID = "QUALSOFTBLOCK0000000000000001"  # type: ignore[attr-defined]
    fake = GuardedMTurk(Guard())
    fake.made_earlier("QUALSOFTBLOCK0000000000000001", "Stancework soft block")
    worker = Worker.objects.create(market="mturk", external_id=WORKER, blocked=True, blocked_reason="spam")
    with market_clients(mturk=fake.client(attempts=1)):
        unblocked = unblock_worker(worker.pk)

    assert not unblocked.blocked
    assert fake.calls["DisassociateQualificationFromWorker"] == 1
