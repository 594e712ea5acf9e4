"""Intents: the ledger rows the platform records before any call that creates work or moves money.

A row is found again by its deterministic token (annotation.ledger.tokens) on every retry, so a
crash between recording and calling never makes a second row for the same intent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from annotation.ledger.models import LedgerEntry, RowKind, RowState, cents
from annotation.ledger.tokens import idempotency_token
from annotation.market_interface.base import Listing
from annotation.market_interface.registry import get_market
from annotation.models import Assignment, Job


class IdempotencyConflictError(ValueError):
    """The same intent asked again with another amount or other parameters: refused, nothing paid."""


class CurrencyError(ValueError):
    """A row in another currency than its job's: one job is booked in one currency."""


class RetryError(ValueError):
    """Only the latest attempt of an intent, and only a failed one, can be tried again."""


def record(
    kind: str,
    market: str,
    refs: Sequence[str | int],
    *,
    job_id: int | None = None,
    hit_id: int | None = None,
    assignment_id: int | None = None,
    market_ref: str = "",
    worker_ref: str = "",
    amount: Decimal = Decimal("0"),
    currency: str = "",
    params: dict[str, Any] | None = None,
) -> LedgerEntry:
    """The ledger row for this intent: created once and found again on every retry.

    Once its latest attempt has failed (the market refused, nothing happened), asking again makes a
    new attempt with its own token. Asking again with another amount or parameters while an attempt
    stands (open or confirmed) raises `IdempotencyConflictError`.
    """
    intent = idempotency_token(kind, market, *refs)
    currency = job_currency(job_id, currency)
    fields = {
        "kind": kind,
        "market": market,
        "job_id": job_id,
        "hit_id": hit_id,
        "assignment_id": assignment_id,
        "market_ref": market_ref,
        "worker_ref": worker_ref,
        "amount": Decimal(amount),
        "currency": currency,
        "params": params or {},
    }
    return _standing_attempt(intent, fields)


def _standing_attempt(intent: str, fields: dict[str, Any]) -> LedgerEntry:
    """The intent's latest attempt, unless there is none or it failed: then a new attempt."""
    latest = LedgerEntry.objects.filter(intent=intent).order_by("-attempt").first()
    if latest is None:
        return _attempt(intent, 1, fields)
    if latest.state == RowState.FAILED:
        return _attempt(intent, latest.attempt + 1, fields)
    _check_same(latest, fields)
    return latest


def job_currency(job_id: int | None, asked: str) -> str:
    """The job's currency (the one every row of the job uses); `asked` must be it, or empty."""
    fixed = Job.objects.filter(pk=job_id).values_list("currency", flat=True).first() if job_id else ""
    if fixed and asked and asked != fixed:
        raise CurrencyError(f"job {job_id} is booked in {fixed}; a row in {asked} is refused")
    return fixed or asked or "USD"


def retry(entry_id: int) -> LedgerEntry:
    """A new attempt of a failed row, with the same amount and parameters and a new token."""
    entry = LedgerEntry.objects.get(pk=entry_id)
    latest = LedgerEntry.objects.filter(intent=entry.intent).order_by("-attempt").first()
    if entry.state != RowState.FAILED or latest is None or latest.pk != entry.pk:
        raise RetryError(
            f"ledger row {entry.pk} is {entry.state} (attempt {entry.attempt} of {latest and latest.attempt})"
        )
    fields = {name: getattr(entry, name) for name in ATTEMPT_FIELDS}
    fields["params"] = {k: v for k, v in entry.params.items() if k not in ENGINE_NOTES}
    return _attempt(entry.intent, entry.attempt + 1, fields)


ATTEMPT_FIELDS = (
    "kind",
    "market",
    "job_id",
    "hit_id",
    "assignment_id",
    "market_ref",
    "worker_ref",
    "amount",
    "currency",
)
# What the engine writes into a row's params while making its call, not what was asked.
ENGINE_NOTES = frozenset({"paid_before"})


def _attempt(intent: str, attempt: int, fields: dict[str, Any]) -> LedgerEntry:
    # The first attempt's token is the intent itself, so rows written before attempts existed match.
    token = (
        intent
        if attempt == 1
        else idempotency_token(fields["kind"], fields["market"], intent, f"attempt:{attempt}")
    )
    entry, created = LedgerEntry.objects.get_or_create(
        intent=intent,
        attempt=attempt,
        defaults={**fields, "token": token, "fingerprint": _fingerprint(fields)},
    )
    if not created:
        _check_same(entry, fields)  # a concurrent caller made this attempt: it must ask the same
    return entry


def _fingerprint(fields: dict[str, Any]) -> str:
    asked = {
        "amount": cents(fields["amount"]),
        "currency": fields["currency"],
        "market_ref": fields["market_ref"],
        "worker_ref": fields["worker_ref"],
        "params": fields["params"],
    }
    return hashlib.sha256(json.dumps(asked, sort_keys=True, default=str).encode()).hexdigest()


def _check_same(entry: LedgerEntry, fields: dict[str, Any]) -> None:
    if entry.fingerprint and entry.fingerprint != _fingerprint(fields):
        raise IdempotencyConflictError(
            f"{entry.kind} {entry.intent[:20]}… was asked for {entry.amount} {entry.currency} with "
            f"{entry.params}; asked again with {fields['amount']} {fields['currency']} "
            f"with {fields['params']}"
        )


def row_params(kind: str, assignment: Assignment) -> dict[str, Any]:
    """What the assignment's market needs in a review or bonus row beyond the assignment."""
    market = get_market(assignment.job.market)
    return market.money.row_params(kind, assignment) if market.money is not None else {}


def review_intent(assignment: Assignment, *, approve: bool, feedback: str) -> LedgerEntry:
    """The ledger row for approving or rejecting an assignment at its market."""
    kind = RowKind.APPROVE if approve else RowKind.REJECT
    params: dict[str, Any] = {"feedback": feedback, **row_params(kind, assignment)}
    return record(
        kind,
        assignment.job.market,
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
    params: dict[str, Any] = {"reason": reason, **row_params(RowKind.BONUS, assignment)}
    return record(
        RowKind.BONUS,
        job.market,
        [f"asg:{assignment.external_id or assignment.pk}", ref],
        job_id=job.pk,
        hit_id=assignment.hit_id,
        assignment_id=assignment.pk,
        market_ref=assignment.external_id,
        worker_ref=assignment.worker.external_id,
        amount=Decimal(amount),
        params=params,
    )


def listing_intent(job: Job, listing: Listing, *, more: bool = False) -> LedgerEntry:
    """The ledger row that offers a listing at the job's market: CREATE_HIT, or EXTEND for `more`."""
    return record(
        RowKind.EXTEND if more else RowKind.CREATE_HIT,
        job.market,
        [f"job:{job.pk}", *listing.refs],
        job_id=job.pk,
        hit_id=listing.hit_pk,
        market_ref=listing.market_ref,
        amount=listing.amount,
        params=dict(listing.params),
    )
