"""What passes between the ledger and a market's paying calls, in the market interface's own terms.

Pure: no Django. The ledger (above) hands a market its rows as `Row`s (a ledger row is one), of a
`RowKind` and in a `RowState`, and what else of its records a market may read or write as `Records`;
the market answers each call with a `Finish`, declares how its calls may be retried in `Money`, and
reports what reconciliation finds as `Discrepancy`s of an `IssueKind`, which the ledger stores as its
issues. So the interface names nothing of the ledger, not even in a type hint, and a market never
imports the ledger (contract `markets-below-the-ledger` in pyproject.toml).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol


class RowKind(StrEnum):
    """What a row's call does."""

    CREATE_HIT = "create_hit"
    EXTEND = "extend"  # more assignments on a HIT: more work, more money
    APPROVE = "approve"
    REJECT = "reject"
    BONUS = "bonus"
    PAY = "pay"  # Prolific's second bonus call: the one that moves the money, not idempotent


class RowState(StrEnum):
    """Where a row stands: requested → claimed → sent → confirmed | failed | unclear."""

    REQUESTED = "requested"
    CLAIMED = "claimed"
    SENT = "sent"
    CONFIRMED = "confirmed"
    FAILED = "failed"
    UNCLEAR = "unclear"

    @classmethod
    def open(cls) -> list[str]:
        """Rows that still need a decision (the sweeper and the admin look at these)."""
        return [cls.REQUESTED, cls.CLAIMED, cls.SENT, cls.UNCLEAR]

    @classmethod
    def final(cls) -> list[str]:
        return [cls.CONFIRMED, cls.FAILED]


class IssueKind(StrEnum):
    """What a `Discrepancy` is about."""

    STATE = "state"  # an assignment's state differs
    APPROVAL = "approval"  # an approval or rejection differs
    BONUS = "bonus"  # bonus payments differ
    HIT = "hit"  # a HIT (a study) differs
    OPEN_ENTRY = "open_entry"  # a row is still open
    UNKNOWN = "unknown"  # work the market does not know
    UNOWNED = "unowned"  # at the market, owned by no job of ours


def cents(amount: Decimal | int | str) -> int:
    """A money amount in whole cents, as the markets and reconciliation compare it."""
    return int((Decimal(amount) * 100).to_integral_value())


class Row(Protocol):
    """One intended market call, as a market reads it (annotation.ledger's `LedgerEntry` is one).

    `kind` is what the call does (create_hit, extend, approve, reject, bonus, pay); `token` is the
    idempotency token the market may be sent; `market_ref` the market's id of what the call acts on;
    `result_ref` what the market returned; `params` what the call needs beyond them.
    """

    @property
    def pk(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def market(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def token(self) -> str: ...
    @property
    def market_ref(self) -> str: ...
    @property
    def worker_ref(self) -> str: ...
    @property
    def result_ref(self) -> str: ...
    @property
    def amount(self) -> Decimal: ...
    @property
    def currency(self) -> str: ...
    @property
    def params(self) -> Any: ...
    @property
    def job_id(self) -> int | None: ...
    @property
    def assignment_id(self) -> int | None: ...
    @property
    def sent_at(self) -> dt.datetime | None: ...


class Records(Protocol):
    """What a market may read and write of the ledger's records, handed to its money hooks and its
    reconciliation by the ledger (annotation.ledger.records is the one implementation)."""

    def rows(
        self,
        kind: str,
        *,
        market: str | None = None,
        job_id: int | None = None,
        market_ref: str | None = None,
        states: Collection[str] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> list[Row]:
        """The rows of this kind, narrowed by each of these given (not None): a market, a job, a market
        id, any of these states, these values in their `params`."""
        ...

    def keep_result(self, row: Row, ref: str) -> None:
        """Store the market's id of what a call made at once, before the call ends (a retry finds it)."""
        ...

    def unwanted(self, row: Row, *, publishing: bool = False) -> str:
        """Why the row's job no longer wants its call ("" when it does)."""
        ...

    def follow_up(self, row: Row, kind: str, *, market_ref: str, params: Mapping[str, Any]) -> Row:
        """Record the row a confirmed row leads to (its token made from the row's): the same job,
        assignment, worker, amount and currency, acting on `market_ref`."""
        ...

    def compare_assignments(
        self,
        job_id: int,
        market: Mapping[str, tuple[str, str]],
        states: Mapping[str, str],
        reviews: Mapping[str, str],
    ) -> Iterable[Discrepancy]:
        """Our assignments and confirmed reviews against the market's. market: assignment ref →
        (market status, worker); states: market status → our assignment state; reviews: row kind →
        the market status a confirmed review leaves."""
        ...


@dataclass(frozen=True)
class Finish:
    """A decision about a row reached with (or without) the market call: a row state (confirmed,
    failed, unclear), the market's id of what it made or acted on, and an excerpt of its answer."""

    state: str
    ref: str = ""
    excerpt: str = ""


@dataclass(frozen=True)
class Discrepancy:
    """One disagreement between our records and the market's, as `Market.reconcile` reports it: of
    what kind (annotation.ledger's issue kinds), about which market id, what we hold and what the market
    holds, and the ledger row it concerns, if one. The ledger stores it as a reconciliation issue."""

    kind: str
    ref: str
    ours: str = ""
    theirs: str = ""
    row_pk: int | None = None


def issue(kind: str, ref: str, ours: object, theirs: object, row: Row | None = None) -> Discrepancy:
    """A discrepancy, with what each side holds as text."""
    return Discrepancy(kind, ref, str(ours), str(theirs), row.pk if row is not None else None)


def bonus_issues(ours: Mapping[str, Decimal], paid: Mapping[str, Decimal]) -> Iterable[Discrepancy]:
    """Bonus money per piece of work (MTurk's assignment, Prolific's submission): ours against the
    market's, to the cent."""
    for ref in sorted(set(ours) | set(paid)):
        if cents(ours.get(ref, Decimal(0))) != cents(paid.get(ref, Decimal(0))):
            yield issue(IssueKind.BONUS, ref, ours.get(ref, Decimal(0)), paid.get(ref, Decimal(0)))
