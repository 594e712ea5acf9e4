"""Compare the ledger and our assignments with what the market reports; flag every disagreement.

A run reads the market through its paginated listings (assignments and bonus payments per HIT on
MTurk; submissions per study on Prolific), replaces the job's unresolved issues with what it finds,
and changes nothing else: deciding what to do about a mismatch is a person's job, in the admin.
A market reports what it finds as `Discrepancy`s (the market interface's terms), reading our side
through the `Records` the ledger hands it (annotation.ledger.records); this module alone stores them
as `ReconciliationIssue` rows.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.ledger.models import IssueKind, LedgerEntry, ReconciliationIssue, RowState
from annotation.ledger.records import RECORDS
from annotation.market_interface.money import Discrepancy, issue
from annotation.market_interface.registry import get_market, market_names
from annotation.models import Job, JobState

RECENT = dt.timedelta(days=30)


def reconciling_markets() -> list[str]:
    return [name for name in market_names() if get_market(name).capabilities.reconcile]


def jobs_to_reconcile(*, now: dt.datetime | None = None) -> list[int]:
    """Market jobs worth a scheduled look: every job with anything at the market (drafts included: a
    publish whose reply was lost leaves a draft with a study), open, paused or changed within 30 days."""
    now = now or timezone.now()
    jobs = Job.objects.filter(market__in=reconciling_markets())
    at_market = Q(pk__in=LedgerEntry.objects.filter(job__isnull=False).values("job_id")) | ~Q(
        state=JobState.DRAFT
    )
    active = Q(state__in=[JobState.DRAFT, *JobState.open(), JobState.PAUSED]) | Q(updated__gte=now - RECENT)
    return list(jobs.filter(at_market & active).order_by("pk").values_list("pk", flat=True))


def reconcile_markets() -> list[ReconciliationIssue]:
    """What each market has that no job of ours owns (a study in our project nobody recorded)."""
    found: list[ReconciliationIssue] = []
    for name in reconciling_markets():
        issues = [stored(None, name, each) for each in get_market(name).reconcile(None, RECORDS)]
        with transaction.atomic():
            ReconciliationIssue.objects.filter(
                job=None, market=name, kind=IssueKind.UNOWNED, resolved=False
            ).delete()
            found += ReconciliationIssue.objects.bulk_create(issues)
    return found


def reconcile_job(job_id: int) -> list[ReconciliationIssue]:
    """Flag every mismatch between our records and the market for one job."""
    job = Job.objects.get(pk=job_id)
    market = get_market(job.market)
    if not market.capabilities.reconcile:
        return []
    reported = market.reconcile(job, RECORDS)
    found = [stored(job, job.market, each) for each in [*reported, *open_entries(job)]]
    with transaction.atomic():
        ReconciliationIssue.objects.filter(job=job, resolved=False).delete()
        return ReconciliationIssue.objects.bulk_create(found)


def stored(job: Job | None, market: str, found: Discrepancy) -> ReconciliationIssue:
    """A market's discrepancy as the issue row the admin shows."""
    return ReconciliationIssue(
        job=job,
        market=market,
        kind=found.kind,
        ref=found.ref,
        ours=found.ours[:300],
        theirs=found.theirs[:300],
        entry_id=found.row_pk,
    )


def open_entries(job: Job) -> list[Discrepancy]:
    return [
        issue(
            IssueKind.OPEN_ENTRY,
            entry.market_ref or entry.token,
            f"{entry.kind} {entry.state}",
            "",
            entry,
        )
        for entry in LedgerEntry.objects.filter(job=job, state__in=RowState.open())
    ]
