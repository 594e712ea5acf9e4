"""What a job paid comes from the ledger: confirmed, unclear and refunded by currency; crowds that pay
nobody through a market say so."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.ledger.payments import job_payments, payments_of
from annotation.markets.prolific.fake import FakeProlific
from annotation.work.jobs import create_job, publish_job, sync_job
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk, GuardedProlific
from tests.annotation.market_clients import market_clients
from tests.annotation.paid_jobs import BONUS, paid_mturk_job, paid_prolific_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def markets(settings: Any) -> Iterator[tuple[GuardedMTurk, GuardedProlific]]:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT
    settings.PROLIFIC_WORKSPACE_ID = FakeProlific.WORKSPACE
    guard = Guard()
    mturk, prolific = GuardedMTurk(guard), GuardedProlific(guard)
    with market_clients(mturk=mturk.client(attempts=1), prolific=prolific.client(attempts=1)):
        yield mturk, prolific
    assert guard.violations == []


def test_a_simulated_crowd_and_in_house_work_say_nothing_was_paid_through_a_market() -> None:
    make_corpus(claims=2, perspectives=2)
    simulated = sync_job(publish_job(create_job("stance", {}, market="simulated").pk).pk)
    inhouse = publish_job(create_job("stance", {}, market="inhouse").pk)

    total = payments_of([simulated, inhouse])

    assert simulated.responses.exists() and total.by_currency == {}
    assert total.sentence() == (
        "In-house annotators: nothing was paid through a market. "
        "Simulated crowd: nothing was paid through a market."
    )


def test_mturk_pay_is_the_approved_reward_and_the_bonus_and_the_rejected_reward_is_refunded(
    markets: tuple[GuardedMTurk, GuardedProlific],
) -> None:
    claims = [claim.cid for claim in make_corpus(claims=2, perspectives=2)]
    job = paid_mturk_job(markets[0], claims)
    reward = job.hits.get().reward

    paid = job_payments(job).by_currency["USD"]

    assert (paid.confirmed, paid.unclear, paid.refunded) == (reward + BONUS, 0, reward)
    assert sum(Decimal(b["BonusAmount"]) for b in markets[0].bonuses) == BONUS


def test_a_prolific_bonus_counts_once_when_paid_not_when_set_up_and_an_unclear_pay_is_unclear(
    markets: tuple[GuardedMTurk, GuardedProlific],
) -> None:
    claims = [claim.cid for claim in make_corpus(claims=2, perspectives=2)]
    job = paid_prolific_job(markets[1], claims)
    reward = job.hits.get().reward
    LedgerEntry.objects.filter(job=job, kind=RowKind.PAY).update(state=RowState.UNCLEAR)

    paid = job_payments(job)

    amounts = paid.by_currency[job.currency]
    assert (amounts.confirmed, amounts.unclear, amounts.refunded) == (reward, BONUS, reward)
    assert "unclear (sent, no clear answer yet)" in paid.sentence()
