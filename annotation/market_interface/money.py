"""What passes between the ledger and a market's paying calls, in the market interface's own terms.

Pure: no Django. The ledger (above) hands a market its rows as `Row`s (a ledger row is one), the market
answers each call with a `Finish`, declares how its calls may be retried in `Money`, and reports what
reconciliation finds as `Discrepancy`s, which the ledger stores as its issues. So the interface names
nothing of the ledger, not even in a type hint.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol


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
    def provider(self) -> str: ...
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


@dataclass(frozen=True)
class Finish:
    """A decision about a row reached with (or without) the market call: a row state (confirmed,
    failed, unclear), the market's id of what it made or acted on, and an excerpt of its answer."""

    state: str
    ref: str = ""
    excerpt: str = ""


@dataclass(frozen=True)
class Money:
    """How a paid market's calls are made safe, declared once: what the ledger engine and its sweeper
    read. A market that pays nobody declares none (`Provider.money` is None)."""

    # What the market calls itself in a row's excerpt ("already Approved at MTurk").
    market: str
    # What the market calls one piece of reviewed or paid work.
    work_noun: str = "assignment"
    # Row kinds whose call is not idempotent: once sent, never sent again (resolved by reading).
    not_idempotent: frozenset[str] = frozenset()
    # Row kinds whose call carries the row's token, and how long the market honours it.
    token_protected: frozenset[str] = frozenset()
    token_lifetime: dt.timedelta | None = None
    # Reviews and payments act on one piece of work: the market's states it may be in for each row
    # kind, and the state a review leaves it in.
    payable: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reviewed: Mapping[str, str] = field(default_factory=dict)
    # Row kinds whose confirmation moves money to a worker: an approval pays the work's reward, a bonus
    # its amount (at Prolific the bonus is set up first and its `pay` row moves the money).
    pays: frozenset[str] = frozenset({"approve", "bonus"})


@dataclass(frozen=True)
class Discrepancy:
    """One disagreement between our records and the market's, as `Provider.reconcile` reports it: of
    what kind (annotation.ledger's issue kinds), about which market id, what we hold and what the market
    holds, and the ledger row it concerns, if one. The ledger stores it as a reconciliation issue."""

    kind: str
    ref: str
    ours: str = ""
    theirs: str = ""
    row_pk: int | None = None
