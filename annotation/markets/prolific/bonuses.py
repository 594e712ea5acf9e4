"""Which of our pay calls a submission's bonus list accounts for. Pure: no Django.

The only documented way to read a Prolific bonus is the submission's `bonus_payments`: amounts in
cents, in an order Prolific does not document, landing "in the following minutes" after the pay
call. So a payment is matched to our pay attempts by amount, and among attempts of one amount by
time: confirmed attempts first (their money is owed to the list), then the others in the order they
were sent. Reading cannot tell two payments of one amount apart, and need not: only how many there are.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class PayAttempt:
    """One pay call of ours for a submission: ledger row id, amount, when sent, whether confirmed."""

    key: int
    cents: int
    sent_at: dt.datetime | None
    confirmed: bool


def bonus_cents(amounts: Iterable[object]) -> tuple[int, ...]:
    """Prolific's `bonus_payments` (numbers, in cents) as whole cents."""
    return tuple(int(Decimal(str(amount)).to_integral_value()) for amount in amounts)


def matched_attempts(paid_cents: Sequence[int], attempts: Sequence[PayAttempt]) -> set[int]:
    """The keys of the attempts whose payment shows in `paid_cents`, matched by amount, then time."""
    left = Counter(paid_cents)
    never = dt.datetime.max.replace(tzinfo=dt.UTC)
    matched: set[int] = set()
    for attempt in sorted(attempts, key=lambda a: (not a.confirmed, a.sent_at or never, a.key)):
        if left[attempt.cents] > 0:
            left[attempt.cents] -= 1
            matched.add(attempt.key)
    return matched
