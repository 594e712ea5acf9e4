"""Compare the ledger and our assignments with what the market reports; flag every disagreement.

A run reads the market through its paginated listings (assignments and bonus payments per HIT on
MTurk; submissions per study on Prolific), replaces the job's unresolved issues with what it finds,
and changes nothing else: deciding what to do about a mismatch is a person's job, in the admin.
A market reports what it finds as `Discrepancy`s (the market interface's terms, built with the
helpers here); this module alone stores them as `ReconciliationIssue` rows.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import Decimal

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.ledger.models import (
    IssueKind,
    LedgerEntry,
    LedgerKind,
    LedgerState,
    ReconciliationIssue,
    cents,
)
from annotation.market_interface.money import Discrepancy
from annotation.market_interface.registry import get_provider, provider_names
from annotation.models import Assignment, AssignmentState, Job, JobState

RECENT = dt.timedelta(days=30)


def reconciling_markets() -> list[str]:
    return [name for name in provider_names() if get_provider(name).capabilities.reconcile]


def jobs_to_reconcile(*, now: dt.datetime | None = None) -> list[int]:
    """Market jobs worth a scheduled look: every job with anything at the market (drafts included: a
    publish whose reply was lost leaves a draft with a study), open, paused or changed within 30 days."""
    now = now or timezone.now()
    jobs = Job.objects.filter(provider__in=reconciling_markets())
    at_market = Q(pk__in=LedgerEntry.objects.filter(job__isnull=False).values("job_id")) | ~Q(
        state=JobState.DRAFT
    )
    active = Q(state__in=[JobState.DRAFT, *JobState.open(), JobState.PAUSED]) | Q(updated__gte=now - RECENT)
    return list(jobs.filter(at_market & active).order_by("pk").values_list("pk", flat=True))


def reconcile_markets() -> list[ReconciliationIssue]:
    """What each market has that no job of ours owns (a study in our project nobody recorded)."""
    found: list[ReconciliationIssue] = []
    for name in reconciling_markets():
        issues = [stored(None, name, each) for each in get_provider(name).reconcile(None)]
        with transaction.atomic():
            ReconciliationIssue.objects.filter(
                job=None, provider=name, kind=IssueKind.UNOWNED, resolved=False
            ).delete()
            found += ReconciliationIssue.objects.bulk_create(issues)
    return found


def reconcile_job(job_id: int) -> list[ReconciliationIssue]:
    """Flag every mismatch between our records and the market for one job."""
    job = Job.objects.get(pk=job_id)
    provider = get_provider(job.provider)
    if not provider.capabilities.reconcile:
        return []
    found = [stored(job, job.provider, each) for each in [*provider.reconcile(job), *open_entries(job)]]
    with transaction.atomic():
        ReconciliationIssue.objects.filter(job=job, resolved=False).delete()
        return ReconciliationIssue.objects.bulk_create(found)


def stored(job: Job | None, provider: str, found: Discrepancy) -> ReconciliationIssue:
    """A market's discrepancy as the issue row the admin shows."""
    return ReconciliationIssue(
        job=job,
        provider=provider,
        kind=found.kind,
        ref=found.ref,
        ours=found.ours[:300],
        theirs=found.theirs[:300],
        entry_id=found.row_pk,
    )


def issue(kind: str, ref: str, ours: object, theirs: object, entry: LedgerEntry | None = None) -> Discrepancy:
    return Discrepancy(kind, ref, str(ours), str(theirs), entry.pk if entry is not None else None)


def confirmed_rows(job: Job, kind: str) -> dict[str, list[LedgerEntry]]:
    rows: dict[str, list[LedgerEntry]] = defaultdict(list)
    for entry in LedgerEntry.objects.filter(job=job, kind=kind, state=LedgerState.CONFIRMED):
        rows[entry.market_ref].append(entry)
    return rows


def compare_assignments(
    job: Job,
    market: dict[str, tuple[str, str]],
    states: Mapping[str, str],
    reviews: Mapping[str, str],
) -> Iterable[Discrepancy]:
    """Local states and reviews against the market's.

    market: assignment ref → (market status, worker); states: market status → our state;
    reviews: ledger kind → the market status a confirmed review leaves.
    """
    local = {a.external_id: a for a in Assignment.objects.filter(job=job).exclude(external_id="")}
    approved, rejected = confirmed_rows(job, LedgerKind.APPROVE), confirmed_rows(job, LedgerKind.REJECT)
    for ref, (status, _worker) in market.items():
        ours = local.get(ref)
        expected = states.get(status)
        if ours is None and expected is not None and expected != "accepted":
            yield issue(IssueKind.STATE, ref, "no such assignment", status)
        elif ours is not None and expected is not None and ours.state != expected:
            yield issue(IssueKind.STATE, ref, ours.state, status)
        for kind, rows in ((LedgerKind.APPROVE, approved), (LedgerKind.REJECT, rejected)):
            if rows.get(ref) and status != reviews[kind]:
                yield issue(IssueKind.APPROVAL, ref, f"{kind} confirmed", status, rows[ref][0])
            if not rows.get(ref) and status == reviews[kind]:
                yield issue(IssueKind.APPROVAL, ref, f"no {kind} in the ledger", status)
    for ref, ours in sorted(local.items()):
        if ref not in market and ours.state in AssignmentState.done():
            # Submitted through our pages, unknown to the market: made-up ids, or work never sent.
            # It is not confirmed, so it counts for nothing; staff see it here.
            yield issue(IssueKind.UNKNOWN, ref, f"{ours.state}, worker {ours.worker_id}", "unknown")
    for ref in set(approved) | set(rejected):
        if ref not in market:
            yield issue(IssueKind.APPROVAL, ref, "reviewed in the ledger", "unknown to the market")


def bonus_issues(ours: Mapping[str, Decimal], paid: Mapping[str, Decimal]) -> Iterable[Discrepancy]:
    """Bonus money per assignment (MTurk) or submission (Prolific): ours against the market's, to the cent."""
    for ref in sorted(set(ours) | set(paid)):
        if cents(ours.get(ref, Decimal(0))) != cents(paid.get(ref, Decimal(0))):
            yield issue(IssueKind.BONUS, ref, ours.get(ref, Decimal(0)), paid.get(ref, Decimal(0)))


def open_entries(job: Job) -> list[Discrepancy]:
    return [
        issue(
            IssueKind.OPEN_ENTRY,
            entry.market_ref or entry.token,
            f"{entry.kind} {entry.state}",
            "",
            entry,
        )
        for entry in LedgerEntry.objects.filter(job=job, state__in=LedgerState.open())
    ]
