"""Money a person types in — a reward, a budget, a bonus cap, a bonus — checked in one place.

Every door that takes an amount (the API, the admin, the commands, the staff forms) calls these,
so an amount is finite, not negative, under the job's cap and no finer than its currency's smallest
unit (two places for dollars, none for yen: ISO 4217's, as Babel lists them, the same
precision `config.wording.money` shows) before any row is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from babel.numbers import get_currency_precision

# The largest single amount the job columns hold (Job.reward has 8 digits, 2 of them decimal;
# Job.budget has 10).
MOST_REWARD = Decimal("999999.99")
MOST_BUDGET = Decimal("99999999.99")
QUOTED = 40  # how much of a bad value an error message repeats


class MoneyError(ValueError):
    """An amount that is not a usable sum of money; the message says which and why."""


def check_amount(raw: Any, *, name: str, currency: str, cap: Decimal | None = None) -> Decimal:
    """`raw` as an amount of `currency`: finite, ≥ 0, at most `cap`, at the currency's precision."""
    value = _decimal(raw, name)
    if value < 0:
        raise MoneyError(f"{name} must not be negative, not {value}")
    places = get_currency_precision(currency.upper())
    if _decimal_places(value) > places:
        raise MoneyError(f"{name} {value} is finer than {currency} pays ({places} decimal places)")
    if cap is not None and value > cap:
        raise MoneyError(f"{name} {value} is over {cap} {currency}")
    return value


def check_rate(raw: Any, *, name: str) -> Decimal:
    """A fee rate: a finite fraction from 0 to 1."""
    value = _decimal(raw, name)
    if not 0 <= value <= 1:
        raise MoneyError(f"{name} must be a fraction from 0 to 1, not {value}")
    return value


def check_job_money(params: Mapping[str, Any], budget: Any) -> tuple[dict[str, Any], Decimal | None]:
    """A new job's parameters and budget with their amounts checked (`params` names the currency).

    The reward per HIT and the bonus cap are each under the budget, when there is one.
    """
    currency = str(params["currency"])
    checked_budget = None
    if budget is not None:
        checked_budget = check_amount(budget, name="budget", currency=currency, cap=MOST_BUDGET)
    cap = min(checked_budget, MOST_REWARD) if checked_budget is not None else MOST_REWARD
    checked = dict(params)
    checked["reward"] = str(check_amount(params["reward"], name="reward", currency=currency, cap=cap))
    if "bonus_cap" in params:
        bonus_cap = check_amount(params["bonus_cap"], name="bonus_cap", currency=currency, cap=cap)
        checked["bonus_cap"] = str(bonus_cap)
    if "fee_rate" in params:
        checked["fee_rate"] = str(check_rate(params["fee_rate"], name="fee_rate"))
    return checked, checked_budget


def _decimal_places(value: Decimal) -> int:
    """The places after the point that are not trailing zeros (exact, however large `value` is)."""
    _, digits, exponent = value.as_tuple()
    significant = "".join(map(str, digits)).rstrip("0")
    return max(0, -(int(exponent) + len(digits) - len(significant))) if significant else 0


def _decimal(raw: Any, name: str) -> Decimal:
    """A finite Decimal from a number or a numeric string; anything else is a MoneyError."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str, Decimal)):
        raise MoneyError(f"{name} must be a number, not {type(raw).__name__}")
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        raise MoneyError(f"{name} {str(raw)[:QUOTED]!r} is not a number") from None
    if not value.is_finite():
        raise MoneyError(f"{name} must be a finite amount, not {value}")
    return value
