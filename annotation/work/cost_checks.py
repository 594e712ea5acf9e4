"""What a job can cost at most (every assignment, every allowed bonus, the market's fee), and the
one check of it against the job's budget and the market's balance before money is committed."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from annotation.market_interface.base import Market, MarketCallError, declared_fee, reward_lines
from annotation.market_interface.errors import MarketError
from annotation.market_interface.registry import get_market
from annotation.models import Job
from annotation.planning import costs
from annotation.work.job_errors import BudgetError


@dataclass(frozen=True)
class CostEstimate:
    """What a publication (or an extension by `extra` assignments per HIT) can cost at most."""

    worst_case: Decimal  # the whole job: every assignment, every allowed bonus, the market fee
    spend: Decimal  # what this step adds (the whole worst case when publishing)
    fee_rate: Decimal
    bonus_cap: Decimal
    budget: Decimal | None
    balance: Decimal | None  # None where no market account pays

    @property
    def refusal(self) -> str:
        """Why this may not be spent, or "": the job budget caps the whole, the balance this step."""
        return costs.refusal(self.worst_case, self.budget, None) or costs.refusal(
            self.spend, None, self.balance
        )


def estimate_cost(job: Job, market: Market | None = None, *, extra: int = 0) -> CostEstimate:
    """The worst case for the job's HITs with `extra` more assignments each, and the market balance."""
    market = market or get_market(job.market)
    fee = market.fee(job)
    whole, spend = _worst_cases(job, market, fee, extra)
    try:
        balance = market.balance()
    except MarketError as error:
        raise MarketCallError(f"cannot read the {market.name} balance: {error}") from error
    return CostEstimate(whole, spend, fee, _bonus_cap(job), job.budget, balance)


def estimate_cost_locally(job: Job, *, extra: int = 0) -> CostEstimate:
    """The same worst case from our own records only, for a web page: no market call, so the fee is
    the declared rate (the job's `fee_rate`, else the market's) and the balance is unknown (None)."""
    market = get_market(job.market)
    fee = declared_fee(market, job)
    whole, spend = _worst_cases(job, market, fee, extra)
    return CostEstimate(whole, spend, fee, _bonus_cap(job), job.budget, None)


def _bonus_cap(job: Job) -> Decimal:
    return Decimal(str(job.params.get("bonus_cap", 0)))


def _worst_cases(job: Job, market: Market, fee: Decimal, extra: int) -> tuple[Decimal, Decimal]:
    """(the whole job's worst case, what this step adds) at `fee`; the reward lines are our own records."""
    hits = list(job.hits.order_by("position"))
    whole = costs.worst_case(reward_lines(market, hits, extra), fee, _bonus_cap(job))
    if not extra:
        return whole, whole
    before = costs.worst_case(reward_lines(market, hits), fee, Decimal(0))
    return whole, costs.worst_case(reward_lines(market, hits, extra), fee, Decimal(0)) - before


def check_cost(job: Job, market: Market | None = None, *, extra: int = 0) -> CostEstimate:
    """The one place of the rule: refuse when the worst case exceeds the job budget or the balance."""
    estimate = estimate_cost(job, market, extra=extra)
    if estimate.refusal:
        raise BudgetError(estimate.refusal)
    return estimate
