"""The worst-case cost rule (pure): rewards, bonus cap and fee; refused over budget or balance."""

from __future__ import annotations

from decimal import Decimal as D

from annotation.planning.costs import refusal, worst_case


def test_the_worst_case_is_every_assignment_and_every_allowed_bonus_with_the_fee() -> None:
    # (1.50 × 3 × 2 + 5.00) × 1.20 = 16.80
    assert worst_case([(D("1.50"), 3), (D("1.50"), 3)], D("0.20"), D("5.00")) == D("16.80")


def test_the_worst_case_rounds_up_to_the_cent() -> None:
    assert worst_case([(D("0.01"), 1)], D("0.3334"), D("0")) == D("0.02")


def test_spending_is_refused_over_the_budget_or_over_the_balance_and_allowed_at_either() -> None:
    assert "job budget 10.00" in refusal(D("10.01"), D("10.00"), D("100"))
    assert "market balance 9.99" in refusal(D("10.00"), None, D("9.99"))
    assert refusal(D("10.00"), D("10.00"), D("10.00")) == ""
    assert refusal(D("10.00"), None, None) == ""
