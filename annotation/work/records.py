"""Reading and reviewing the record: long-format responses, gold accuracy, pseudonyms, reviews, blocks."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.db.models.signals import pre_save
from django.dispatch import receiver
from django.utils import timezone

from annotation.ledger import engine, intents
from annotation.market_interface.base import Control
from annotation.market_interface.registry import control, get_market
from annotation.models import (
    Assignment,
    AssignmentState,
    HitItem,
    Item,
    Job,
    Response,
    ResponseOrigin,
    Worker,
)
from annotation.work.pseudonyms import PseudonymKeyError, is_pseudonym, pseudonym


def long_format(
    job: Job, *, include_gold: bool = False, exclude_workers: Iterable[int] = (), with_machines: bool = False
) -> QuerySet[Response, tuple[int, int, str]]:
    """(item, worker, label) rows of a job, one query, for the aggregators.

    Only work that counts: submitted or approved, confirmed by its market (`Assignment.counted`);
    rejected and unconfirmed work never votes. `exclude_workers` leaves out those workers too, and
    machine annotators' labels are left out unless ``with_machines``: a machine is not a person.
    """
    rows = counted_responses(job, include_gold=include_gold, with_machines=with_machines)
    excluded = list(exclude_workers)
    if excluded:
        rows = rows.exclude(worker_id__in=excluded)
    return rows.order_by("item_id", "worker_id").values_list("item_id", "worker_id", "label")


def counted_responses(
    job: Job, *, include_gold: bool = False, with_machines: bool = False
) -> QuerySet[Response]:
    """The job's responses that count: submitted or approved work its market confirmed (and, with
    ``with_machines``, every machine annotator's label, which has no assignment; without, only those a
    machine gave alone within the job's bound, `machine_accepted`).

    Found as the job's responses less those of its assignments that do not count (rejected,
    unconfirmed, …), not joined with those that do: ten million responses then probe a small set
    rather than a million-row join (a fifth less server CPU in `aggregate_job`'s read). A response's
    job is its assignment's (`work.assignments` stores them so)."""
    uncounted = Assignment.objects.filter(job=job).exclude(Assignment.counted()).values("pk")
    rows = Response.objects.filter(job=job).exclude(assignment__in=uncounted)
    rows = rows if with_machines else rows.exclude(Q(origin=ResponseOrigin.MACHINE) & ~machine_accepted(job))
    return rows if include_gold else rows.filter(is_gold=False)


def machine_accepted(job: Job) -> Q:
    """The machine labels that stand as the job's answers: scored at or above the job's chosen threshold,
    on items no person was asked about (aggregation.machine_jobs). None until a threshold is chosen."""
    threshold = (job.params.get("machine_routing") or {}).get("threshold")
    if threshold is None:
        return Q(pk__in=[])
    asked = HitItem.objects.filter(hit__job=job).values("item_id")
    return Q(origin=ResponseOrigin.MACHINE, value__score__gte=threshold) & ~Q(item_id__in=asked)


def gold_accuracy(job: Job) -> dict[int, tuple[int, int]]:
    """Per worker of a job: (gold answered, gold right). `Worker.gold_accuracy` holds the all-time figure."""
    # The responses of the job's gold items, found through those items: a job of a million items and
    # few or no gold ones then probes the response index for those few, where filtering by the
    # response's own flag scanned all ten million rows.
    gold = Item.objects.filter(job=job, is_gold=True).values("pk")
    rows = (
        Response.objects.filter(job=job, is_gold=True, item__in=gold)
        .values("worker_id")
        .annotate(answered=Count("pk"), right=Count("pk", filter=Q(correct=True)))
    )
    return {row["worker_id"]: (row["answered"], row["right"]) for row in rows}


def pseudonym_key() -> bytes:
    key = settings.WORKER_PSEUDONYM_KEY
    if key:
        return str(key).encode()
    if not settings.DEBUG:
        raise PseudonymKeyError("set WORKER_PSEUDONYM_KEY: worker ids must not leave the database unkeyed")
    # In development a key derived from SECRET_KEY keeps pseudonyms stable without another secret.
    return hmac.new(settings.SECRET_KEY.encode(), b"stancework worker pseudonyms", hashlib.sha256).digest()


def worker_pseudonym(worker: Worker) -> str:
    """The only form of a worker's id that may leave the operational database (exports, logs)."""
    return pseudonym(worker.market, worker.external_id, pseudonym_key())


def worker_by_pseudonym(name: str) -> Worker | None:
    """The worker a keyed pseudonym names, or None: one indexed query. The row found is checked against
    the key in use, so a pseudonym stored under an earlier key names nobody."""
    if not is_pseudonym(name):
        return None
    key = pseudonym_key()
    worker = Worker.objects.filter(pseudonym=name).first()
    if worker is None or not hmac.compare_digest(pseudonym(worker.market, worker.external_id, key), name):
        return None
    return worker


@receiver(pre_save, sender=Worker)
def name_new_worker(sender: type[Worker], instance: Worker, **kwargs: Any) -> None:
    """Store a worker's pseudonym when it is created; without a key it stays None until
    `fill_worker_pseudonyms` runs (as the migration that added it did)."""
    if instance._state.adding and instance.pseudonym is None:
        # No key (only with DEBUG off in tests; settings refuse to start without one): no name yet.
        with suppress(PseudonymKeyError):
            instance.pseudonym = worker_pseudonym(instance)


def fill_worker_pseudonyms(model: type[Worker] = Worker, *, batch: int = 2000) -> int:
    """Store the pseudonym of every worker that has none (a migration passes its historical model);
    after the key changes, clear the column and run this again. Returns how many were filled."""
    rows = model.objects.filter(pseudonym__isnull=True).only("pk", "market", "external_id")
    if not rows.exists():
        return 0
    key, filled = pseudonym_key(), 0
    while chunk := list(rows.order_by("pk")[:batch]):
        for worker in chunk:
            worker.pseudonym = pseudonym(worker.market, worker.external_id, key)
        model.objects.bulk_update(chunk, ["pseudonym"])
        filled += len(chunk)
    return filled


class ReviewError(ValueError):
    """A review (approval, rejection, bonus) that the assignment's state does not allow."""


def review_assignment(assignment_id: int, *, approve: bool, feedback: str = "") -> Assignment:
    """Approve or reject submitted work, at the market and here. Reviewing twice changes nothing.

    At a market that reviews, the review is a ledger row, committed with no transaction open before
    the market's `send` makes the call; only once it is confirmed is the new state saved here. A
    rejection the market would refuse (Prolific: too short a message) writes nothing.
    """
    target = AssignmentState.APPROVED if approve else AssignmentState.REJECTED
    assignment = Assignment.objects.select_related("job", "worker", "hit").get(pk=assignment_id)
    if assignment.state == target:
        return assignment
    if assignment.state != AssignmentState.SUBMITTED:
        raise ReviewError(f"only submitted work can be reviewed, not {assignment.state} work")
    market = get_market(assignment.job.market)
    if market.capabilities.review:
        if not approve:
            market.check(assignment.job, rejection=feedback)
        engine.confirmed(intents.review_intent(assignment, approve=approve, feedback=feedback))
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().select_related("job").get(pk=assignment_id)
        if assignment.state == AssignmentState.SUBMITTED:
            assignment.state, assignment.feedback, assignment.reviewed_at = target, feedback, timezone.now()
            assignment.save(update_fields=["state", "feedback", "reviewed_at"])
        elif assignment.state != target:
            # A concurrent opposite review won locally; the market (read before each call) decided.
            raise ReviewError(f"assignment {assignment.pk} was {assignment.state} meanwhile")
    return assignment


def unblock_worker(worker_id: int) -> Worker:
    """Let a worker work again, at their market first, then here. The market is asked whatever our
    own flag says: a block whose reply was lost may have reached it (Prolific: the blocklist group is
    read, and the worker taken out if there)."""
    worker = Worker.objects.get(pk=worker_id)
    control(worker.market, Control.UNBLOCK, worker)
    if worker.blocked:
        Worker.objects.filter(pk=worker_id).update(blocked=False, blocked_reason="")
        worker.refresh_from_db()
    return worker


def block_worker(worker_id: int, reason: str) -> Worker:
    """Block a worker here and on their market; their open assignments are returned."""
    worker = Worker.objects.get(pk=worker_id)
    if not worker.blocked:
        # Before the lock, not under it: a soft block at the market is safe to repeat.
        control(worker.market, Control.BLOCK, worker, reason)
    with transaction.atomic():
        worker = Worker.objects.select_for_update().get(pk=worker_id)
        if not worker.blocked:
            worker.blocked, worker.blocked_reason = True, reason[:200]
            worker.save(update_fields=["blocked", "blocked_reason"])
            for assignment in worker.assignments.filter(state=AssignmentState.ACCEPTED):
                assignment.state = AssignmentState.RETURNED
                assignment.save(update_fields=["state"])
                # Returned work frees its items for others; the worker is blocked anyway.
                assignment.worker_items.all().delete()
    return worker
