"""What publishing a job can cost at most, and whether that may be spent. Pure: no Django.

The worst case is every assignment done and paid, plus every bonus the job allows (`bonus_cap`),
plus the market's fee. Both MTurk and Prolific charge their fee on bonuses as well as rewards,
so the cap is charged with the fee too: reward × assignments × (1 + fee) + bonus cap × (1 + fee).
That is never less than the issue's reward × assignments × (1 + fee) + bonus cap.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_CEILING, Decimal

CENT = Decimal("0.01")


def worst_case(rewards: Iterable[tuple[Decimal, int]], fee_rate: Decimal, bonus_cap: Decimal) -> Decimal:
    """(Σ reward × assignments + bonus cap) × (1 + fee), rounded up to the cent."""
    base = sum((Decimal(reward) * count for reward, count in rewards), Decimal(0))
    total = (base + Decimal(bonus_cap)) * (1 + Decimal(fee_rate))
    return total.quantize(CENT, rounding=ROUND_CEILING)


def refusal(cost: Decimal, budget: Decimal | None, balance: Decimal | None) -> str:
    """Why `cost` may not be spent ("" when it may): over the job budget, or over the account balance."""
    if budget is not None and cost > budget:
        return f"worst-case cost {cost} exceeds the job budget {budget}"
    if balance is not None and cost > balance:
        return f"worst-case cost {cost} exceeds the market balance {balance}"
    return ""
