"""Ledger services: record the intent, claim it, make the market call once, store what happened.

Call these outside a transaction (tasks, admin actions): each state change commits on its own, so
the row exists before the call and a crash leaves a row the sweeper can see. Inside a caller's
transaction (a service holding a lock) they still work, but the row only becomes durable with
that transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.ledger.models import LedgerEntry, RowState
from annotation.ledger.records import RECORDS, as_entry
from annotation.ledger.wants import unwanted
from annotation.market_interface.base import Market, MarketCallError, Money
from annotation.market_interface.errors import (
    MarketBusyError,
    MarketConfigError,
    MarketError,
    MarketUnavailableError,
    PaymentOutcomeUnclearError,
)
from annotation.market_interface.money import Finish
from annotation.market_interface.registry import get_market

log = logging.getLogger(__name__)

# The names of the tasks that run `execute` and `resolve` (annotation/ledger/tasks.py): what queues
# them by hand (the admin's actions) names them, and so loads neither the tasks nor Celery at start.
EXECUTE_TASK = "annotation.execute_ledger_entry"
RESOLVE_TASK = "annotation.resolve_ledger_entry"


def paying(name: str) -> tuple[Market, Money]:
    """The market and its money (declared values and hooks); refused before any row is claimed when the
    market pays nobody (it declares no `money`)."""
    market = get_market(name)
    if market.money is None:
        raise MarketConfigError(f"the {name} market makes no market calls (it declares no money)")
    return market, market.money


def precheck(money: Money, entry: LedgerEntry) -> Finish | None:
    """Work already reviewed as asked is confirmed without a call; work in a state the market would
    refuse the call in fails without one."""
    if entry.kind not in money.payable:
        return None
    status = money.work_status(entry)
    if entry.kind in money.reviewed and status == money.reviewed[entry.kind]:
        return Finish(RowState.CONFIRMED, entry.market_ref, f"already {status} at {money.market}")
    if status not in money.payable[entry.kind]:
        return Finish(RowState.FAILED, excerpt=f"{money.market} reports the {money.work_noun} as {status}")
    return None


def token_expired(money: Money, entry: LedgerEntry, now: dt.datetime) -> bool:
    """Whether the row's token may have been used and is past the market's lifetime for it: sent
    again, it could act a second time (MTurk: "could create duplicate HITs")."""
    return (
        money.token_lifetime is not None
        and entry.kind in money.token_protected
        and entry.sent_at is not None
        and entry.requested_at <= now - money.token_lifetime
    )


def refusal(market: Market, money: Money, entry: LedgerEntry, publishing: bool) -> Finish | None:
    """A row not to send as it is: its job no longer wants it (failed when it was never sent, else
    unclear, to be decided by reading), its token is past its lifetime (unclear), or its currency is
    not its job's or its market's (failed, naming both)."""
    reason = unwanted(entry, publishing=publishing)
    if reason and entry.sent_at is None:
        return Finish(RowState.FAILED, excerpt=reason)
    if reason:
        return Finish(RowState.UNCLEAR, excerpt=f"{reason}; it may have been made before: read it")
    if token_expired(money, entry, timezone.now()):
        return Finish(
            RowState.UNCLEAR,
            excerpt=f"its token was first sent over {money.token_lifetime} ago, past {money.market}'s "
            "lifetime for it: decided by reading the market, never sent again",
        )
    return _currency_refusal(market, entry)


def _currency_refusal(market: Market, entry: LedgerEntry) -> Finish | None:
    booked = entry.job.currency if entry.job_id is not None and entry.job is not None else entry.currency
    for theirs, whose in ((booked, f"job {entry.job_id}"), (market.currency, money_name(market))):
        if theirs and theirs != entry.currency:
            return Finish(
                RowState.FAILED,
                excerpt=f"currency: the row is in {entry.currency} but {whose} is in {theirs}: refused",
            )
    return None


def money_name(market: Market) -> str:
    return market.money.market if market.money is not None else market.name


def resend_is_safe(money: Money, entry: LedgerEntry, now: dt.datetime) -> bool:
    """Whether a row sent but never finished may be sent again."""
    if entry.kind in money.not_idempotent:
        return False
    if money.token_lifetime is not None and entry.kind in money.token_protected:
        return entry.requested_at > now - money.token_lifetime
    return True  # reviews are read before they are sent again


def _move(entry: LedgerEntry, source: Sequence[str], target: str, **fields: Any) -> bool:
    """A conditional UPDATE: true only for the one caller that found the row in `source`."""
    now = timezone.now()
    moved = LedgerEntry.objects.filter(pk=entry.pk, state__in=list(source)).update(
        state=target, updated=now, **fields
    )
    return moved == 1


def _finish(entry: LedgerEntry, finish: Finish, source: Sequence[str]) -> LedgerEntry:
    fields: dict[str, Any] = {"finished_at": timezone.now(), "response_excerpt": finish.excerpt[:2000]}
    if finish.ref:
        fields["result_ref"] = finish.ref
    if finish.state == RowState.FAILED:
        fields["error"] = finish.excerpt[:500]
    _move(entry, source, finish.state, **fields)
    entry.refresh_from_db()
    return entry


def execute(entry_id: int, *, publishing: bool = False) -> LedgerEntry:
    """Claim the row and make its market call. Any number of concurrent callers: one call at most.
    `publishing`: the caller is the job's publish, under way (the one time a draft wants its HITs)."""
    entry = LedgerEntry.objects.get(pk=entry_id)
    market, money = paying(entry.market)
    if not _claim(entry):
        return entry  # another delivery holds (or finished) the row: its state now, not as first read
    state = RowState.CLAIMED
    refused = refusal(market, money, entry, publishing)
    if refused is not None:
        return _refused(entry, refused)
    try:
        early = precheck(money, entry)
        if early is not None:
            return _finish(entry, early, [state])
        if not _move(entry, [state], RowState.SENT, sent_at=timezone.now()):
            # The sweeper took the row back while this delivery was stalled (a frozen worker, a slow
            # read) and another may have paid it since: only the holder of the claim may call.
            entry.refresh_from_db()
            return entry
        state = RowState.SENT
        finish = money.send(entry, RECORDS)
    except PaymentOutcomeUnclearError as exc:
        log.warning("ledger %s: outcome unclear, to be resolved by reading: %s", entry.pk, exc)
        return _finish(entry, Finish(RowState.UNCLEAR, excerpt=exc.excerpt or str(exc)), [state])
    except MarketUnavailableError as exc:
        return _back_off(entry, state, exc, money)
    except MarketError as exc:
        return _finish(entry, Finish(RowState.FAILED, excerpt=f"{exc} {exc.excerpt}".strip()), [state])
    # A confirmed row and the rows it leads to (Prolific's pay row after a bonus set-up) commit
    # together: a worker dying between the two can no longer leave a bonus set up and never paid.
    with transaction.atomic():
        entry = _finish(entry, finish, [state])
        follow_ups = money.follow_ups(entry, RECORDS) if entry.state == RowState.CONFIRMED else []
    for row in follow_ups:
        execute(row.pk)
    return entry


def _claim(entry: LedgerEntry) -> bool:
    """Whether this caller claimed the requested row (read again either way)."""
    claimed = _move(
        entry,
        [RowState.REQUESTED],
        RowState.CLAIMED,
        claimed_at=timezone.now(),
        attempts=F("attempts") + 1,
    )
    entry.refresh_from_db()
    return claimed


def _refused(entry: LedgerEntry, refused: Finish) -> LedgerEntry:
    """A claimed row not sent: failed with its reason, or unclear and read at once (failed there, it
    keeps the reason it was not sent as well as what the reading found)."""
    entry = _finish(entry, refused, [RowState.CLAIMED])
    if entry.state != RowState.UNCLEAR:
        return entry
    entry = resolve(entry.pk)
    if entry.state == RowState.FAILED:
        LedgerEntry.objects.filter(pk=entry.pk).update(error=f"{refused.excerpt} — {entry.error}"[:500])
        entry.refresh_from_db()
    return entry


class InFlightError(MarketCallError):
    """Another delivery holds the row and is making its call now; its outcome will show in the ledger."""


def confirmed(entry: LedgerEntry, *, publishing: bool = False) -> LedgerEntry:
    """The row's call made (unless an earlier run confirmed it), insisting it ended confirmed."""
    if entry.state != RowState.CONFIRMED:
        entry = execute(entry.pk, publishing=publishing)
    if entry.state in (RowState.CLAIMED, RowState.SENT):
        raise InFlightError(f"{entry.market} {entry.kind} is being made by another request right now")
    if entry.state != RowState.CONFIRMED:
        raise MarketCallError(
            f"{entry.market} {entry.kind} is {entry.state}: {entry.error or 'not confirmed'}"
        )
    return entry


def paid(entry: LedgerEntry) -> LedgerEntry:
    """A paying row confirmed, and every row it leads to (Prolific's pay call after a bonus is set up)
    confirmed too: `MarketCallError` (or `InFlightError`) otherwise."""
    entry = confirmed(entry)
    for row in paying(entry.market)[1].follow_ups(entry, RECORDS):
        confirmed(as_entry(row))
    return entry


def _back_off(entry: LedgerEntry, state: str, exc: MarketUnavailableError, money: Money) -> LedgerEntry:
    """A transient failure: back to requested when a resend is safe, else unclear. A market that
    turned the call away before acting on it (MarketBusyError: Prolific's 429) did nothing: safe."""
    if entry.kind in money.not_idempotent and state == RowState.SENT and not isinstance(exc, MarketBusyError):
        target = RowState.UNCLEAR
    else:
        # Reviews are read before they are sent; token-protected calls reuse their token.
        target = RowState.REQUESTED
    _move(entry, [state], target, error=str(exc)[:500])
    entry.refresh_from_db()
    return entry


def resolve(entry_id: int) -> LedgerEntry:
    """Decide an unclear row by reading the market; left unclear when the market cannot tell yet."""
    entry = LedgerEntry.objects.get(pk=entry_id)
    if entry.state != RowState.UNCLEAR:
        return entry
    try:
        finish = paying(entry.market)[1].resolve(entry, RECORDS)
    except MarketError as exc:
        log.info("ledger %s: could not read the market yet: %s", entry.pk, exc)
        return entry
    if finish is None:
        return entry
    return _finish(entry, finish, [RowState.UNCLEAR])


@dataclass(frozen=True)
class SweepReport:
    requeued: list[int]
    unclear: list[int]


def sweep_stale(*, now: dt.datetime | None = None, stale: dt.timedelta | None = None) -> SweepReport:
    """Rows stuck mid-way (a worker died): back to requested where a resend is safe, else unclear."""
    now = now or timezone.now()
    cutoff = now - (stale or dt.timedelta(seconds=settings.LEDGER_STALE_SECONDS))
    requeued: list[int] = []
    unclear: list[int] = []
    # Claimed but never sent: the call did not go out.
    for entry in LedgerEntry.objects.filter(state=RowState.CLAIMED, claimed_at__lt=cutoff):
        if _move(entry, [RowState.CLAIMED], RowState.REQUESTED):
            requeued.append(entry.pk)
    # Sent and never finished: the call may have gone out.
    for entry in LedgerEntry.objects.filter(state=RowState.SENT, sent_at__lt=cutoff):
        if resend_is_safe(paying(entry.market)[1], entry, now):
            if _move(entry, [RowState.SENT], RowState.REQUESTED):
                requeued.append(entry.pk)
        elif _move(entry, [RowState.SENT], RowState.UNCLEAR, error="stale after the call was sent"):
            unclear.append(entry.pk)
    requeued += LedgerEntry.objects.filter(state=RowState.REQUESTED, updated__lt=cutoff).values_list(
        "pk", flat=True
    )
    unclear += (
        LedgerEntry.objects.filter(state=RowState.UNCLEAR)
        .exclude(pk__in=unclear)
        .values_list("pk", flat=True)
    )
    return SweepReport(sorted(set(requeued)), sorted(set(unclear)))
