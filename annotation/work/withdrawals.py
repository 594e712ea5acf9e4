"""Work a market offers for a job that no longer wants it: the offer rows that were never made are
cancelled with their reason, and a study or HIT that exists anyway (its publish was in flight when
the job was cancelled, or a lost reply was read back as made) is stopped and reported on the job."""

from __future__ import annotations

import logging

from annotation.ledger import engine
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.market_interface.base import Control, MarketCallError
from annotation.market_interface.errors import MarketError
from annotation.market_interface.registry import control
from annotation.models import Hit, Job, JobState

log = logging.getLogger(__name__)

OFFERS = [RowKind.CREATE_HIT, RowKind.EXTEND]
WITHDRAWN = "withdrawn"  # noted in a row's params once what it made is stopped


def cancel_offers(job: Job) -> list[LedgerEntry]:
    """The job's offer rows still requested, each through the ledger's gate: a job that no longer wants
    them has them failed with the reason (or, when one may have been made, read at the market)."""
    rows = LedgerEntry.objects.filter(job=job, kind__in=OFFERS, state=RowState.REQUESTED)
    return [engine.execute(pk) for pk in rows.values_list("pk", flat=True)]


def unwanted_listings(job: Job | None = None) -> list[LedgerEntry]:
    """Studies or HITs made for cancelled jobs and not stopped yet (of one job, or of all)."""
    rows = LedgerEntry.objects.filter(
        kind=RowKind.CREATE_HIT, state=RowState.CONFIRMED, job__state=JobState.CANCELLED
    ).exclude(result_ref="")
    if job is not None:
        rows = rows.filter(job=job)
    return [row for row in rows.select_related("job") if WITHDRAWN not in row.params]


def withdraw_unwanted(job: Job | None = None) -> int:
    """Stop each study or HIT made for a cancelled job, and say so on the job; how many were stopped.
    One the market will not stop yet (a study still publishing) is left for the next run."""
    stopped = 0
    for row in unwanted_listings(job):
        assert row.job is not None  # the query asked for the job's state
        listing = Hit(job=row.job, external_id=row.result_ref)
        try:
            control(row.job.market, Control.EXPIRE, listing)
        except (MarketCallError, MarketError) as error:
            log.warning("job %s: %s %s not stopped yet: %s", row.job_id, row.market, row.result_ref, error)
            continue
        LedgerEntry.objects.filter(pk=row.pk).update(params={**row.params, WITHDRAWN: True})
        row.job.hits.filter(external_id=row.result_ref).update(expired=True)
        note = (
            f"{row.market} listing {row.result_ref} was made while the job was being cancelled: "
            "it was stopped at the market."
        )
        Job.objects.filter(pk=row.job.pk).update(market_note=note[:300])
        stopped += 1
    return stopped
