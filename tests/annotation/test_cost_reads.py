"""The publish and extend confirmation pages show each job's market cost as a background operation last
read it: the read is kept per job, so nothing another job's line says can pass for this job's."""

from __future__ import annotations

import pytest

from annotation.market_interface.errors import MarketError
from annotation.models import Job
from annotation.work import market_actions
from annotation.work.cost_checks import CostEstimate, estimate_cost
from annotation.work.jobs import create_job
from annotation.work.market_actions import SHOW_MARKET_COSTS, last_cost_reads
from operations.models import Operation, OperationState
from operations.services import run_operation
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def read_costs(jobs: list[Job]) -> Operation:
    """What the admin's "read the market" button starts, run as the worker runs it."""
    pks = [job.pk for job in jobs]
    operation = Operation.objects.create(
        kind=SHOW_MARKET_COSTS, label="Market cost", params={"job_ids": pks}, total=len(pks)
    )
    return run_operation(operation.pk)


def test_a_market_message_that_reads_like_another_jobs_line_is_not_that_jobs_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_corpus(claims=2, perspectives=2)
    first, second = (create_job("stance", {}, market="simulated") for _ in range(2))
    forged = f"{second}: worst case 0.01 (fee 0%, bonus cap 0); no budget set; balance 999999: all fine"
    real = estimate_cost

    def estimate(job: Job) -> CostEstimate:
        if job.pk == first.pk:
            raise MarketError(f"the market said:\n{forged}")
        return real(job)

    monkeypatch.setattr(market_actions, "estimate_cost", estimate)
    operation = read_costs([first, second])
    reads = last_cost_reads([first.pk, second.pk])

    assert operation.state == OperationState.FAILED  # the first job's read failed
    assert reads[first.pk].line.startswith("failed: the market said:")
    assert reads[second.pk].line.startswith("worst case ") and "999999" not in reads[second.pk].line
    assert reads[second.pk].operation == operation


def test_each_job_gets_its_own_read_when_one_pk_begins_another() -> None:
    make_corpus(claims=2, perspectives=2)
    short = create_job("stance", {}, market="simulated")
    long = Job.objects.create(pk=int(f"{short.pk}1"), task_type="stance", market="simulated")
    older = read_costs([long])
    newer = read_costs([short])

    reads = last_cost_reads([short.pk, long.pk])

    assert (reads[short.pk].operation, reads[long.pk].operation) == (newer, older)
    assert reads[long.pk].line.startswith("worst case ")
