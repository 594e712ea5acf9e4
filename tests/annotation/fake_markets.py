"""The platform's fake markets with a guard that refuses any paying call without a claimed ledger row.

The fakes are the platform's own, beside each client: MTurk's (annotation/markets/mturk/fake.py, a
real boto3 client whose every request and answer is checked against AWS's service model) and
Prolific's (annotation/markets/prolific/fake.py, checked against Prolific's published schema).

The guard: when a call that creates work or pays reaches either market, the ledger row for it
must already be committed in state `sent` (claimed, then marked sent, by annotation.ledger.engine),
and the caller must not be inside a transaction (or the row would not be durable yet).
Every breach is recorded in `violations`; tests assert there are none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection

from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.markets.mturk.fake import FakeMTurk
from annotation.markets.prolific.fake import FakeProlific
from tests.annotation.market_clients import market_clients

# The ledger row each of the fake Prolific's paying calls needs: its kind, and the field that
# holds what the call acts on (see annotation.markets.prolific.fake.PayingHook).
PROLIFIC_ROWS: dict[str, tuple[str, str]] = {
    "create study": (RowKind.CREATE_HIT, "job_id"),
    "publish study": (RowKind.CREATE_HIT, "result_ref"),
    "add places": (RowKind.EXTEND, "market_ref"),
    "approve submission": (RowKind.APPROVE, "market_ref"),
    "reject submission": (RowKind.REJECT, "market_ref"),
    "set up bonus": (RowKind.BONUS, "market_ref"),
    "pay bonus": (RowKind.PAY, "market_ref"),
}


class Guard:
    """Checks each paying call against the ledger, and keeps what it saw."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self.paying: Counter[str] = Counter()

    def check(self, what: str, rows: Any) -> None:
        self.paying[what] += 1
        if connection.in_atomic_block:
            self.violations.append(f"{what} called inside a transaction")
        if not rows.filter(state=RowState.SENT).exists():
            self.violations.append(f"{what} called without a sent ledger row")

    def prolific(self, what: str, ref: str) -> None:
        """The fake Prolific's hook: `what` is about to act on `ref`."""
        kind, field = PROLIFIC_ROWS[what]
        match = {field: int(ref) if field == "job_id" else ref}
        self.check(f"prolific {what}", LedgerEntry.objects.filter(market="prolific", kind=kind, **match))

    def mturk(self, op: str, params: dict[str, Any]) -> None:
        """The fake MTurk's hook: `op` is about to act, with these parameters."""
        if "UniqueRequestToken" in params:
            rows = LedgerEntry.objects.filter(token=params["UniqueRequestToken"])
        else:
            kind = RowKind.APPROVE if op == "ApproveAssignment" else RowKind.REJECT
            rows = LedgerEntry.objects.filter(market="mturk", kind=kind, market_ref=params["AssignmentId"])
        self.check(f"mturk {op}", rows)


class GuardedMTurk(FakeMTurk):
    """The platform's fake MTurk with the guard on every call that creates work or pays."""

    def __init__(self, guard: Guard) -> None:
        super().__init__(on_paying=guard.mturk)
        self.guard = guard


class GuardedProlific(FakeProlific):
    """The platform's fake Prolific with the guard on every call that creates work or pays."""

    def __init__(self, guard: Guard) -> None:
        super().__init__(on_paying=guard.prolific)
        self.guard = guard


@contextmanager
def guarded_prolific(settings: Any) -> Iterator[GuardedProlific]:
    """The guarded fake Prolific as the platform's client (our project, no workspace set, the public URL
    its studies link to); on the way out, no call it took broke the guard."""
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT
    settings.PROLIFIC_WORKSPACE_ID = ""
    market = GuardedProlific(Guard())
    with market_clients(prolific=market.client(attempts=1)):
        yield market
    assert market.guard.violations == []
