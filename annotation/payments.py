"""Ledger services: record the intent, claim it, make the market call once, store what happened.

Call these outside a transaction (tasks, admin actions): each state change commits on its own, so
the row exists before the call and a crash leaves a row the sweeper can see. Inside a caller's
transaction (a provider method called from a service holding a lock) they still work, but the
row only becomes durable with that transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from annotation.idempotency import idempotency_token
from annotation.ledger import LedgerEntry, LedgerKind, LedgerState
from annotation.market_gateways import GATEWAYS, Finish
from annotation.models import Assignment
from annotation.providers.base import ProviderError
from annotation.providers.market_errors import (
    MarketError,
    MarketUnavailableError,
    PaymentOutcomeUnclearError,
)

log = logging.getLogger(__name__)

# MTurk honours a UniqueRequestToken for 24 hours; past that a resend could act twice.
TOKEN_LIFETIME = dt.timedelta(hours=23)
TOKEN_PROTECTED = {LedgerKind.CREATE_HIT, LedgerKind.EXTEND, LedgerKind.BONUS}


def record(
    kind: str,
    provider: str,
    refs: Sequence[str | int],
    *,
    job_id: int | None = None,
    hit_id: int | None = None,
    assignment_id: int | None = None,
    market_ref: str = "",
    worker_ref: str = "",
    amount: Decimal = Decimal("0"),
    currency: str = "USD",
    params: dict[str, Any] | None = None,
) -> LedgerEntry:
    """The ledger row for this intent: created once, found again by its token on every retry."""
    entry, _ = LedgerEntry.objects.get_or_create(
        token=idempotency_token(kind, provider, *refs),
        defaults={
            "kind": kind,
            "provider": provider,
            "job_id": job_id,
            "hit_id": hit_id,
            "assignment_id": assignment_id,
            "market_ref": market_ref,
            "worker_ref": worker_ref,
            "amount": amount,
            "currency": currency,
            "params": params or {},
        },
    )
    return entry


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
    if finish.state == LedgerState.FAILED:
        fields["error"] = finish.excerpt[:500]
    _move(entry, source, finish.state, **fields)
    entry.refresh_from_db()
    return entry


def execute(entry_id: int) -> LedgerEntry:
    """Claim the row and make its market call. Any number of concurrent callers: one call at most."""
    now = timezone.now()
    entry = LedgerEntry.objects.get(pk=entry_id)
    if not _move(
        entry, [LedgerState.REQUESTED], LedgerState.CLAIMED, claimed_at=now, attempts=F("attempts") + 1
    ):
        # Another delivery holds (or finished) the row: report its state now, not as first read.
        entry.refresh_from_db()
        return entry
    entry.refresh_from_db()
    gateway = GATEWAYS[entry.provider]
    state = LedgerState.CLAIMED
    try:
        early = gateway.precheck(entry)
        if early is not None:
            return _finish(entry, early, [state])
        _move(entry, [state], LedgerState.SENT, sent_at=timezone.now())
        state = LedgerState.SENT
        finish = gateway.send(entry)
    except PaymentOutcomeUnclearError as exc:
        log.warning("ledger %s: outcome unclear, to be resolved by reading: %s", entry.pk, exc)
        return _finish(entry, Finish(LedgerState.UNCLEAR, excerpt=exc.excerpt or str(exc)), [state])
    except MarketUnavailableError as exc:
        return _back_off(entry, state, exc)
    except MarketError as exc:
        return _finish(entry, Finish(LedgerState.FAILED, excerpt=f"{exc} {exc.excerpt}".strip()), [state])
    entry = _finish(entry, finish, [state])
    if entry.provider == "prolific" and entry.kind == LedgerKind.BONUS:
        pay_bonus(entry)
    return entry


def confirmed(entry: LedgerEntry) -> LedgerEntry:
    """The row's call made (unless an earlier run confirmed it), insisting it ended confirmed."""
    if entry.state != LedgerState.CONFIRMED:
        entry = execute(entry.pk)
    if entry.state != LedgerState.CONFIRMED:
        raise ProviderError(
            f"{entry.provider} {entry.kind} is {entry.state}: {entry.error or 'not confirmed'}"
        )
    return entry


def _back_off(entry: LedgerEntry, state: str, exc: MarketUnavailableError) -> LedgerEntry:
    """A transient failure: back to requested when a resend is safe, else unclear."""
    if entry.kind == LedgerKind.PAY and state == LedgerState.SENT:
        target = LedgerState.UNCLEAR
    else:
        # Reviews are read before they are sent; token-protected calls reuse their token.
        target = LedgerState.REQUESTED
    _move(entry, [state], target, error=str(exc)[:500])
    entry.refresh_from_db()
    return entry


def pay_bonus(entry: LedgerEntry) -> LedgerEntry:
    """Prolific's bonus is two calls: once the bulk payment is set up, record and make the pay call.

    The PAY row's token comes from the setup row, so however often this runs there is one PAY row,
    and `execute` claims it at most once.
    """
    if entry.state != LedgerState.CONFIRMED or not entry.result_ref:
        raise MarketError(f"bonus setup {entry.pk} is {entry.state}; nothing to pay yet")
    pay = record(
        LedgerKind.PAY,
        "prolific",
        [entry.token],
        job_id=entry.job_id,
        assignment_id=entry.assignment_id,
        market_ref=entry.result_ref,
        worker_ref=entry.worker_ref,
        amount=entry.amount,
        currency=entry.currency,
        params={"submission_id": entry.market_ref, "bonus_entry": entry.pk},
    )
    return execute(pay.pk)


def resolve(entry_id: int) -> LedgerEntry:
    """Decide an unclear row by reading the market; left unclear when the market cannot tell yet."""
    entry = LedgerEntry.objects.get(pk=entry_id)
    if entry.state != LedgerState.UNCLEAR:
        return entry
    try:
        finish = GATEWAYS[entry.provider].resolve(entry)
    except MarketError as exc:
        log.info("ledger %s: could not read the market yet: %s", entry.pk, exc)
        return entry
    if finish is None:
        return entry
    return _finish(entry, finish, [LedgerState.UNCLEAR])


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
    for entry in LedgerEntry.objects.filter(state=LedgerState.CLAIMED, claimed_at__lt=cutoff):
        if _move(entry, [LedgerState.CLAIMED], LedgerState.REQUESTED):
            requeued.append(entry.pk)
    # Sent and never finished: the call may have gone out.
    for entry in LedgerEntry.objects.filter(state=LedgerState.SENT, sent_at__lt=cutoff):
        if _resend_is_safe(entry, now):
            if _move(entry, [LedgerState.SENT], LedgerState.REQUESTED):
                requeued.append(entry.pk)
        elif _move(entry, [LedgerState.SENT], LedgerState.UNCLEAR, error="stale after the call was sent"):
            unclear.append(entry.pk)
    requeued += LedgerEntry.objects.filter(state=LedgerState.REQUESTED, updated__lt=cutoff).values_list(
        "pk", flat=True
    )
    unclear += (
        LedgerEntry.objects.filter(state=LedgerState.UNCLEAR)
        .exclude(pk__in=unclear)
        .values_list("pk", flat=True)
    )
    return SweepReport(sorted(set(requeued)), sorted(set(unclear)))


def _resend_is_safe(entry: LedgerEntry, now: dt.datetime) -> bool:
    if entry.kind == LedgerKind.PAY:
        return False
    if entry.provider == "mturk" and entry.kind in TOKEN_PROTECTED:
        return entry.requested_at > now - TOKEN_LIFETIME
    return True  # reviews are read before they are sent again; Prolific setup calls pay nobody


# -- intents from the rest of the platform ------------------------------------------------------


def review_intent(assignment: Assignment, *, approve: bool, feedback: str, category: str = "") -> LedgerEntry:
    """The ledger row for approving or rejecting an assignment at its market."""
    kind = LedgerKind.APPROVE if approve else LedgerKind.REJECT
    params: dict[str, Any] = {"feedback": feedback}
    if category:
        params["category"] = category
    return record(
        kind,
        assignment.job.provider,
        [f"asg:{assignment.external_id or assignment.pk}"],
        job_id=assignment.job_id,
        hit_id=assignment.hit_id,
        assignment_id=assignment.pk,
        market_ref=assignment.external_id,
        worker_ref=assignment.worker.external_id,
        params=params,
    )


def bonus_intent(assignment: Assignment, amount: Decimal, reason: str, ref: str) -> LedgerEntry:
    """The ledger row for a bonus; `ref` names why (a rule, a batch) so two bonuses stay two rows."""
    job = assignment.job
    params: dict[str, Any] = {"reason": reason}
    if job.provider == "prolific":
        params["study_id"] = assignment.hit.external_id
    return record(
        LedgerKind.BONUS,
        job.provider,
        [f"asg:{assignment.external_id or assignment.pk}", ref],
        job_id=job.pk,
        hit_id=assignment.hit_id,
        assignment_id=assignment.pk,
        market_ref=assignment.external_id,
        worker_ref=assignment.worker.external_id,
        amount=Decimal(amount),
        currency=str(job.params.get("currency", "USD")),
        params=params,
    )


def request_execution(entry: LedgerEntry) -> None:
    """Run the row's call in the background once the current transaction commits."""
    from annotation.ledger_tasks import execute_ledger_entry_task

    execute_ledger_entry_task.delay_on_commit(entry.pk)  # type: ignore[attr-defined]
