"""A job's own blocklist at its market: the workers the live quality check stops in the job are kept
from its work there too, not only refused by our pages (issue 47).

A market that declares `Capabilities.job_blocklist` (MTurk: a qualification type the job's HITs
require a worker not to hold; Prolific: a participant group the job's studies exclude) gets one per
job that stops workers, made before the job is published. Every call about it is a `BlocklistCall`
row, recorded before the call (annotation.quality.services records those of a stop and its
reversal, in the transaction that writes them), claimed once and made by a background operation
(`annotation.send_blocklist_calls`). A call that fails stays FAILED, shown on its stop, and the retry
sweep sends it again; a worker killed after claiming a call leaves it SENT, which the sweep sends
again once stale: making is decided by reading the market first (the blocklist of the job's name),
and putting on or taking off a worker changes nothing the second time.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from annotation.market_interface.base import Market, MarketCallError
from annotation.market_interface.errors import MarketError
from annotation.market_interface.registry import get_market
from annotation.models import Job
from annotation.quality.models import BlocklistAction, BlocklistCall, BlocklistCallState
from annotation.quality.services import SEND_BLOCKLIST_CALLS, policy_of
from annotation.work.job_errors import JobError
from operations.services import start_operation

State = BlocklistCallState
# What a failed call can raise: kept on the row, and the call sent again by the retry sweep.
CALL_ERRORS = (MarketCallError, MarketError)


def blocklist_name(job: Job) -> str:
    """The job's blocklist's name at the market: unique to the job and to this platform (two platforms
    sharing a market account make different names), so a lost reply is found again by it."""
    material = f"{settings.SECRET_KEY}|job-blocklist|{job.pk}".encode()
    return f"Stancework job {job.pk}: stopped workers ({hashlib.sha256(material).hexdigest()[:8]})"


def keeps_blocklist(job: Job) -> bool:
    """Whether the job has (or gets, when published) a blocklist of its own at its market."""
    return policy_of(job).stop_workers and get_market(job.market).capabilities.job_blocklist


def ensure_job_blocklist(job: Job) -> Job:
    """Before publishing a job that stops workers at a market that keeps job blocklists: make its
    blocklist, once however many publish at once, and keep the market's id on the job."""
    if job.market_blocklist or not keeps_blocklist(job):
        return job
    try:
        with transaction.atomic():
            call, _ = BlocklistCall.objects.get_or_create(job=job, action=BlocklistAction.MAKE)
    except IntegrityError:  # a parallel publish recorded it first
        call = BlocklistCall.objects.get(job=job, action=BlocklistAction.MAKE)
    call = send_call(call.pk)
    job.refresh_from_db(fields=["market_blocklist"])
    if not job.market_blocklist:
        why = call.error or "another run is making it now"
        raise JobError(f"job {job.pk} cannot be published before its blocklist at the market is made: {why}")
    return job


def send_call(call_id: int) -> BlocklistCall:
    """Send a recorded call, after any earlier one for the same worker in the job (so a reversal
    never overtakes its stop); a call another run claimed is left to it."""
    call = BlocklistCall.objects.get(pk=call_id)
    if call.worker_id is None:  # making the blocklist: one per job
        return _send(call.pk)
    earlier = BlocklistCall.objects.filter(
        job_id=call.job_id, worker_id=call.worker_id, pk__lt=call.pk, state__in=State.unfinished()
    )
    for before in earlier.order_by("pk"):
        if _send(before.pk).state != State.DONE:
            return call  # it waits for the earlier one, sent again by the sweep
    return _send(call.pk)


def _send(call_id: int) -> BlocklistCall:
    now = timezone.now()
    claimed = BlocklistCall.objects.filter(pk=call_id, state__in=[State.REQUESTED, State.FAILED]).update(
        state=State.SENT, sent_at=now, attempts=F("attempts") + 1
    )
    call = BlocklistCall.objects.select_related("job", "worker", "stop").get(pk=call_id)
    if not claimed:
        return call
    market = get_market(call.job.market)
    try:
        made = _call(market, call)
    except CALL_ERRORS as error:
        return _finish(call, State.FAILED, market, error=str(error)[:500])
    return _finish(call, State.DONE, market, made=made)


def _call(market: Market, call: BlocklistCall) -> str:
    """The market's one call for the row; what it made (the blocklist's id), else ""."""
    if call.action == BlocklistAction.MAKE:
        return market.make_blocklist(call.job, blocklist_name(call.job))
    assert call.worker is not None, "a call about a worker names the worker"
    market.blocklist(call.job, call.worker, call.action == BlocklistAction.ADD)
    return ""


def _finish(
    call: BlocklistCall, state: str, market: Market, *, made: str = "", error: str = ""
) -> BlocklistCall:
    with transaction.atomic():
        call.state, call.error = state, error
        call.done_at = timezone.now() if state == State.DONE else None
        call.save(update_fields=["state", "error", "done_at"])
        if made:
            Job.objects.filter(pk=call.job_id).update(market_blocklist=made)
        audit.record(
            None,
            AuditEvent.Action.MARKET_BLOCKLIST,
            f"job {call.job_id}",
            call=call.pk,
            stop=call.stop_id,
            worker=(call.worker.pseudonym or f"worker {call.worker_id}") if call.worker else None,
            market=market.name,
            change=call.action,
            outcome=state if not error else f"failed: {error}",
            attempts=call.attempts,
        )
    return call


def retry_unfinished(*, now: dt.datetime | None = None) -> list[int]:
    """The retry sweep: calls that failed, calls recorded but never sent, and calls claimed by a run
    that died, sent again by one background operation; returns their ids."""
    cutoff = (now or timezone.now()) - dt.timedelta(seconds=settings.LEDGER_STALE_SECONDS)
    BlocklistCall.objects.filter(state=State.SENT, sent_at__lt=cutoff).update(state=State.REQUESTED)
    waiting = BlocklistCall.objects.filter(state=State.FAILED) | BlocklistCall.objects.filter(
        state=State.REQUESTED, created__lt=cutoff
    )
    ids = sorted(waiting.values_list("pk", flat=True))
    if ids:
        start_operation(SEND_BLOCKLIST_CALLS, "send blocklist calls again", {"call_ids": ids}, total=len(ids))
    return ids
