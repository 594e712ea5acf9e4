"""A published job on its market: extend, expire, pay bonuses. Every market call outside a transaction.

Each paying or work-creating call goes through the money ledger (annotation.ledger.engine): the row is
committed first, then the call is made once, then its outcome is stored. Checks that must hold
against concurrent requests (the bonus cap) take a row lock only while the row is written.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import F, Sum
from django.db.models.functions import Greatest

from annotation.ledger import engine, intents
from annotation.ledger.listings import extend_hits
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.base import Control
from annotation.market_interface.registry import control, get_market
from annotation.models import Assignment, AssignmentState, Job, JobState
from annotation.planning import amounts
from annotation.work.cost_checks import check_cost
from annotation.work.job_errors import BudgetError, JobStateError
from annotation.work.jobs import expire_hits, pause_job
from annotation.work.records import ReviewError
from annotation.work.settling import settle_job

EXTENDABLE = [*JobState.open(), JobState.COMPLETE]


def extend_job(job_id: int, count: int) -> Job:
    """Offer `count` more assignments on every published HIT, once the cost check allows it."""
    if count < 1:
        raise ValueError(f"extend by at least one assignment, not {count}")
    job = Job.objects.get(pk=job_id)
    if job.state not in EXTENDABLE:
        raise JobStateError(f"job {job.pk} is {job.state}: only a published or complete job is extended")
    market = get_market(job.market)
    check_cost(job, market, extra=count)
    hits = list(job.hits.exclude(external_id="").order_by("position"))
    # Each HIT goes to the total named in its ledger row ("to:N"), never "+count" again: a second,
    # concurrent extension from the same starting point finds the same row and adds nothing.
    targets = {hit.pk: hit.assignments_wanted + count for hit in hits}
    extend_hits(job, hits, count)
    for hit in hits:
        if hit.expired:
            # Not a paying call: it only lets workers find the HIT again.
            control(job.market, Control.REOFFER, hit)
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        for hit_pk, target in targets.items():
            job.hits.filter(pk=hit_pk).update(
                assignments_wanted=Greatest(F("assignments_wanted"), target), expired=False
            )
        if job.state == JobState.COMPLETE:
            job.state, job.completed_at = JobState.COLLECTING, None
            job.save(update_fields=["state", "completed_at", "updated"])
    return settle_job(job.pk)


def expire_job(job_id: int) -> Job:
    """Stop offering the job's HITs at the market now and pause it; accepted work may still come in."""
    job = pause_job(job_id)
    expire_hits(job)
    return job


def bonus_assignment(assignment_id: int, amount: Decimal, reason: str, batch: str) -> LedgerEntry:
    """Pay a bonus through the ledger, within the job's `bonus_cap`; one payment per batch name.

    The cap is checked and the ledger row written under the job's row lock, so concurrent bonuses
    cannot pass the cap together; the market call follows once that row is committed.
    """
    assignment = Assignment.objects.select_related("job", "worker", "hit").get(pk=assignment_id)
    amount = amounts.check_amount(amount, name="a bonus", currency=assignment.job.currency)
    if amount <= 0:
        raise ReviewError(f"a bonus must be positive, not {amount}")
    market = get_market(assignment.job.market)
    if not market.capabilities.bonus:
        raise ReviewError(f"the {market.name} market pays no bonuses")
    if assignment.state not in AssignmentState.payable():
        raise ReviewError(f"only submitted or approved work earns a bonus, not {assignment.state} work")
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=assignment.job_id)
        entry = intents.bonus_intent(assignment, amount, reason, f"batch:{batch}")
        promised = LedgerEntry.objects.filter(job=job, kind=RowKind.BONUS)
        promised = promised.exclude(state=RowState.FAILED)
        total = promised.aggregate(total=Sum("amount"))["total"] or Decimal(0)
        cap = Decimal(str(job.params.get("bonus_cap", 0)))
        if total > cap:
            # Raising rolls back the row just written, so nothing over the cap is ever recorded.
            raise BudgetError(f"bonuses of job {job.pk} would total {total}, over its bonus_cap {cap}")
    return engine.paid(entry)
