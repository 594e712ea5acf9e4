"""One currency per job, fixed when it is created: the market's (the Prolific workspace's, MTurk's US
dollars), on every ledger row; and Prolific's fee from its own calculator. Against FakeProlific."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from annotation.ledger import intents
from annotation.ledger.models import LedgerEntry, RowKind
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import AssignmentState
from annotation.work.cost_checks import estimate_cost
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job, publish_job
from annotation.work.market import bonus_assignment
from tests.annotation.factories import make_corpus
from tests.annotation.test_prolific_market import fake, published, submitted

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest


def test_every_ledger_row_of_a_job_uses_the_workspace_currency_fixed_at_creation(
    fake: FakeProlific, settings: Any
) -> None:
    settings.PROLIFIC_CURRENCY = "GBP"
    job = published()
    assignment = submitted(fake, job, state=AssignmentState.APPROVED)
    bonus_assignment(assignment.pk, Decimal("0.30"), "Gold right", "gold")

    assert job.currency == "GBP"
    assert set(LedgerEntry.objects.filter(job=job).values_list("currency", flat=True)) == {"GBP"}
    assert set(LedgerEntry.objects.filter(job=job).values_list("kind", flat=True)) >= {
        RowKind.CREATE_HIT, RowKind.BONUS, RowKind.PAY,
    }  # fmt: skip
    with pytest.raises(intents.CurrencyError, match="booked in GBP"):
        intents.record(RowKind.EXTEND, "prolific", ["x"], job_id=job.pk, currency="USD")


def test_a_job_in_another_currency_than_the_workspace_is_refused_naming_both(
    fake: FakeProlific, settings: Any
) -> None:
    make_corpus(claims=1, perspectives=1)
    with pytest.raises(JobError, match=r"asks for USD.*pays in GBP"):
        create_job("stance", {}, market="prolific", params={"currency": "USD"})
    settings.PROLIFIC_CURRENCY = "EUR"  # what we believe; the workspace (the fake) pays in GBP
    job = create_job("stance", {}, market="prolific", params={"bonus_cap": "1.00"})

    with pytest.raises(Exception, match=r"booked in EUR.*pays in GBP"):
        publish_job(job.pk)
    assert fake.studies == {} and not LedgerEntry.objects.exists()


def test_an_mturk_job_is_in_us_dollars_and_refuses_another_currency() -> None:
    make_corpus(claims=1, perspectives=1)
    with pytest.raises(JobError, match="pays in USD"):
        create_job("stance", {}, market="mturk", params={"currency": "GBP"})


def test_the_fee_comes_from_prolifics_study_cost_calculator_vat_included(fake: FakeProlific) -> None:
    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="prolific")

    estimate = estimate_cost(job)

    assert "calculate-study-cost" in [op for op, _ in fake.calls]
    assert Decimal("0.39") < estimate.fee_rate < Decimal("0.41")  # 33.34% fee plus 20% VAT on the fee
