"""What a job paid, read from the ledger: the one source of every money figure a page, a datasheet or a
command shows.

Money moves only through ledger rows that a market confirmed. Per currency: `confirmed` is what the
market confirmed paying workers (approved rewards and bonuses, the row kinds the market declares in
`Money.pays`); `unclear` is what went out with no clear answer yet (it may or may not have been paid);
`refunded` is the reward of work the market confirmed rejected, which goes back to the account. A job
on a market that pays nobody (simulated, in-house) has no money rows: it says so instead of a sum.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.registry import get_market
from annotation.models import Job
from config.wording import money

# The states of a row whose call may have gone out without a clear answer back.
IN_DOUBT = (RowState.CLAIMED, RowState.SENT, RowState.UNCLEAR)
FIGURES = ("confirmed", "unclear", "refunded")


@dataclass
class Amounts:
    """Money of one currency: paid (confirmed), in doubt (unclear), returned for rejected work (refunded)."""

    confirmed: Decimal = Decimal("0.00")
    unclear: Decimal = Decimal("0.00")
    refunded: Decimal = Decimal("0.00")

    def add(self, other: Amounts) -> None:
        for name in FIGURES:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, str]:
        return {name: str(getattr(self, name).quantize(Decimal("0.01"))) for name in FIGURES}

    def sentence(self, currency: str) -> str:
        said = [f"{money(self.confirmed, currency)} paid"]
        if self.unclear:
            said.append(f"{money(self.unclear, currency)} unclear (sent, no clear answer yet)")
        if self.refunded:
            said.append(f"{money(self.refunded, currency)} refunded (rejected work)")
        return ", ".join(said)


@dataclass
class Payments:
    """What one job (or several) paid through markets, by currency; `unpaid` names the crowds that pay
    nobody through a market ("simulated crowd", "in-house annotators")."""

    by_currency: dict[str, Amounts] = field(default_factory=dict)
    unpaid: set[str] = field(default_factory=set)

    def add(self, other: Payments) -> None:
        for currency, amounts in other.by_currency.items():
            self.by_currency.setdefault(currency, Amounts()).add(amounts)
        self.unpaid |= other.unpaid

    def as_dict(self) -> dict[str, object]:
        return {
            "through_market": {c: a.as_dict() for c, a in sorted(self.by_currency.items())},
            "not_through_market": sorted(self.unpaid),
        }

    def sentence(self) -> str:
        """In plain words, e.g. "Through markets: 3.50 USD paid. Simulated crowd: nothing was paid
        through a market."."""
        said = []
        if self.by_currency:
            amounts = "; ".join(a.sentence(c) for c, a in sorted(self.by_currency.items()))
            said.append(f"Through markets: {amounts}.")
        said += [
            f"{crowd[:1].upper()}{crowd[1:]}: nothing was paid through a market."
            for crowd in sorted(self.unpaid)
        ]
        return " ".join(said) or "No crowd work: nothing was paid."


def job_payments(job: Job) -> Payments:
    """What `job` paid, from its confirmed, unclear and rejected ledger rows."""
    market = get_market(job.market)
    if market.money is None:
        return Payments(unpaid={market.crowd or f"{market.name} workers"})
    found = Payments()
    rows = LedgerEntry.objects.filter(job=job).values_list(
        "kind", "state", "currency", "amount", "hit__reward"
    )
    for kind, state, currency, amount, reward in rows:
        # A review row acts on one piece of work: its money is the work's reward.
        value = amount or (reward if kind in (RowKind.APPROVE, RowKind.REJECT) else None) or Decimal(0)
        amounts = found.by_currency.setdefault(currency, Amounts())
        if kind in market.money.pays and state == RowState.CONFIRMED:
            amounts.confirmed += value
        elif kind in market.money.pays and state in IN_DOUBT:
            amounts.unclear += value
        elif kind == RowKind.REJECT and state == RowState.CONFIRMED:
            amounts.refunded += value
    return found


def payments_of(jobs: Iterable[Job]) -> Payments:
    """The jobs' payments added up, by currency."""
    total = Payments()
    for job in jobs:
        total.add(job_payments(job))
    return total
