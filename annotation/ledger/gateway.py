"""How a ledger row becomes market calls: the money side of a market, what the ledger engine calls.

A market's folder subclasses `Gateway` (annotation/markets/<market>/gateway.py) and its provider names
it; the engine finds it through the market registry and never tests a market's name. Only the engine
calls a gateway: approving, rejecting, paying, publishing and extending are ledger rows, never a
provider's method.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from annotation.ledger.models import LedgerEntry, LedgerState

if TYPE_CHECKING:
    from annotation.models import Assignment


@dataclass(frozen=True)
class Finish:
    """A decision about a ledger row reached without (or after) the market call."""

    state: str
    ref: str = ""
    excerpt: str = ""


class Gateway:
    """How each ledger row kind becomes market calls: read first, call once, read again to resolve.

    `work_status` reads the market's state of the work a review or payment acts on (the engine reads
    it before a call: work already in the target state is confirmed without a second call); `send`
    makes the one call; `resolve` decides an unclear row from the market's state, never by repeating
    the call; `follow_ups` records the rows a confirmed row leads to (Prolific's pay call after a bonus
    is set up); `row_params` says what a review or bonus row carries beyond the assignment.
    """

    # Row kinds whose call is not idempotent: once sent, never sent again (resolved by reading).
    not_idempotent: ClassVar[frozenset[str]] = frozenset()
    # Row kinds whose call carries the ledger token, and how long the market honours it.
    token_protected: ClassVar[frozenset[str]] = frozenset()
    token_lifetime: ClassVar[dt.timedelta | None] = None
    # Reviews and payments act on one piece of work: the market's states it may be in for each row
    # kind, the state a review leaves it in, and what the market calls it (for the row's excerpt).
    payable: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    reviewed: ClassVar[Mapping[str, str]] = {}
    market: ClassVar[str] = ""
    work_noun: ClassVar[str] = "assignment"

    def work_status(self, entry: LedgerEntry) -> str:
        """The market's state of the work a review or payment row acts on (`entry.market_ref`)."""
        raise NotImplementedError

    def send(self, entry: LedgerEntry) -> Finish:
        raise NotImplementedError

    def resolve(self, entry: LedgerEntry) -> Finish | None:
        return None

    def follow_ups(self, entry: LedgerEntry) -> list[LedgerEntry]:
        """The ledger rows a confirmed row leads to, recorded in the transaction that confirms it;
        the engine then executes them. None by default."""
        return []

    def row_params(self, kind: str, assignment: Assignment) -> dict[str, Any]:
        """What a review or bonus row of this kind needs beyond the assignment (Prolific: the study a
        bonus is paid on, a rejection's category). Raising here refuses the row before it is written."""
        return {}


def precheck(gateway: Gateway, entry: LedgerEntry) -> Finish | None:
    """Work already reviewed as asked is confirmed without a call; work in a state the market would
    refuse the call in fails without one."""
    if entry.kind not in gateway.payable:
        return None
    status = gateway.work_status(entry)
    if entry.kind in gateway.reviewed and status == gateway.reviewed[entry.kind]:
        return Finish(LedgerState.CONFIRMED, entry.market_ref, f"already {status} at {gateway.market}")
    if status not in gateway.payable[entry.kind]:
        return Finish(
            LedgerState.FAILED, excerpt=f"{gateway.market} reports the {gateway.work_noun} as {status}"
        )
    return None


def resend_is_safe(gateway: Gateway, entry: LedgerEntry, now: dt.datetime) -> bool:
    """Whether a row sent but never finished may be sent again."""
    if entry.kind in gateway.not_idempotent:
        return False
    if gateway.token_lifetime is not None and entry.kind in gateway.token_protected:
        return entry.requested_at > now - gateway.token_lifetime
    return True  # reviews are read before they are sent again
