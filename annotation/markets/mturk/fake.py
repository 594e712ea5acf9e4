"""A fake MTurk for the bench and the demo, chosen in settings as Django chooses its locmem backend:

    MARKET_CLIENTS=mturk=annotation.markets.mturk.fake.approving_client

It answers the calls the ledger's gateway makes for a bonus: every assignment reads as approved,
and every bonus is paid at once and kept (`bonus_tokens`), so a run can count the market calls.
The tests' stateful fakes (tests/annotation/fake_markets.py) check every call against AWS's API
model as well; this one only answers from memory.
"""

from __future__ import annotations

import threading
from decimal import Decimal

from annotation.markets.mturk.client import MarketAssignment, Outcome


class ApprovingMTurk:
    """MTurk as the ledger's gateway uses it for bonuses: approved work, every bonus paid and kept."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bonus_tokens: list[str] = []

    def get_assignment(self, ref: str) -> MarketAssignment:
        return MarketAssignment(ref, "W", "H", "Approved", None, "")

    def send_bonus(self, worker: str, ref: str, amount: Decimal, reason: str, token: str) -> Outcome:
        with self.lock:
            self.bonus_tokens.append(token)
        return Outcome(ref)


_market = ApprovingMTurk()


def approving_client() -> ApprovingMTurk:
    """The one fake market of this process (what MARKET_CLIENTS names)."""
    return _market
