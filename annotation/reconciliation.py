"""Compare the ledger and our assignments with what the market reports; flag every disagreement.

A run reads the market through its paginated listings (assignments and bonus payments per HIT on
MTurk; submissions per study on Prolific), replaces the job's unresolved issues with what it finds,
and changes nothing else: deciding what to do about a mismatch is a person's job, in the admin.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import Decimal

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.ledger import IssueKind, LedgerEntry, LedgerKind, LedgerState, ReconciliationIssue
from annotation.market_gateways import cents
from annotation.models import Assignment, Job, JobState
from annotation.providers.market_clients import mturk_client, prolific_client
from annotation.providers.mturk_provider import STATES as MTURK_STATES
from annotation.providers.prolific_provider import STATES as PROLIFIC_STATES

MARKET_REVIEW = {
    "mturk": {LedgerKind.APPROVE: "Approved", LedgerKind.REJECT: "Rejected"},
    "prolific": {LedgerKind.APPROVE: "APPROVED", LedgerKind.REJECT: "REJECTED"},
}


RECENT = dt.timedelta(days=30)


def jobs_to_reconcile(*, now: dt.datetime | None = None) -> list[int]:
    """Market jobs worth a scheduled look: published and not finished, or finished within 30 days."""
    now = now or timezone.now()
    jobs = Job.objects.filter(provider__in=sorted(MARKET_REVIEW)).exclude(state=JobState.DRAFT)
    active = Q(state__in=[*JobState.open(), JobState.PAUSED]) | Q(updated__gte=now - RECENT)
    return list(jobs.filter(active).order_by("pk").values_list("pk", flat=True))


def reconcile_job(job_id: int) -> list[ReconciliationIssue]:
    """Flag every mismatch between our records and the market for one job."""
    job = Job.objects.get(pk=job_id)
    if job.provider == "mturk":
        found = list(_mturk(job))
    elif job.provider == "prolific":
        found = list(_prolific(job))
    else:
        return []
    found += _open_entries(job)
    with transaction.atomic():
        ReconciliationIssue.objects.filter(job=job, resolved=False).delete()
        return ReconciliationIssue.objects.bulk_create(found)


def _issue(
    job: Job, kind: str, ref: str, ours: object, theirs: object, entry: LedgerEntry | None = None
) -> ReconciliationIssue:
    return ReconciliationIssue(
        job=job,
        provider=job.provider,
        kind=kind,
        ref=ref,
        ours=str(ours)[:300],
        theirs=str(theirs)[:300],
        entry=entry,
    )


def _confirmed(job: Job, kind: str) -> dict[str, list[LedgerEntry]]:
    rows: dict[str, list[LedgerEntry]] = defaultdict(list)
    for entry in LedgerEntry.objects.filter(job=job, kind=kind, state=LedgerState.CONFIRMED):
        rows[entry.market_ref].append(entry)
    return rows


def _compare(
    job: Job, market: dict[str, tuple[str, str]], states: Mapping[str, str]
) -> Iterable[ReconciliationIssue]:
    """market: assignment ref → (market status, worker). Local states and reviews against it."""
    local = {a.external_id: a for a in Assignment.objects.filter(job=job).exclude(external_id="")}
    reviews = MARKET_REVIEW[job.provider]
    approved, rejected = _confirmed(job, LedgerKind.APPROVE), _confirmed(job, LedgerKind.REJECT)
    for ref, (status, _worker) in market.items():
        ours = local.get(ref)
        expected = states.get(status)
        if ours is None and expected is not None and expected != "accepted":
            yield _issue(job, IssueKind.STATE, ref, "no such assignment", status)
        elif ours is not None and expected is not None and ours.state != expected:
            yield _issue(job, IssueKind.STATE, ref, ours.state, status)
        for kind, rows in ((LedgerKind.APPROVE, approved), (LedgerKind.REJECT, rejected)):
            if rows.get(ref) and status != reviews[kind]:
                yield _issue(job, IssueKind.APPROVAL, ref, f"{kind} confirmed", status, rows[ref][0])
            if not rows.get(ref) and status == reviews[kind]:
                yield _issue(job, IssueKind.APPROVAL, ref, f"no {kind} in the ledger", status)
    for ref in set(approved) | set(rejected):
        if ref not in market:
            yield _issue(job, IssueKind.APPROVAL, ref, "reviewed in the ledger", "unknown to the market")


def _bonus_issues(
    job: Job, ours: Mapping[str, Decimal], paid: Mapping[str, Decimal]
) -> Iterable[ReconciliationIssue]:
    """Bonus money per assignment (MTurk) or submission (Prolific): ours against the market's, to the cent."""
    for ref in sorted(set(ours) | set(paid)):
        if cents(ours.get(ref, Decimal(0))) != cents(paid.get(ref, Decimal(0))):
            yield _issue(job, IssueKind.BONUS, ref, ours.get(ref, Decimal(0)), paid.get(ref, Decimal(0)))


def _mturk(job: Job) -> Iterable[ReconciliationIssue]:
    client = mturk_client()
    market: dict[str, tuple[str, str]] = {}
    paid: dict[str, Decimal] = defaultdict(Decimal)
    hits = list(job.hits.exclude(external_id=""))
    for hit in hits:
        for found in client.list_assignments(hit.external_id):
            market[found.assignment_id] = (found.status, found.worker_id)
        for bonus in client.list_bonuses(hit_id=hit.external_id):
            paid[bonus.assignment_id] += bonus.amount
    yield from _compare(job, market, MTURK_STATES)
    ours = {
        ref: sum((row.amount for row in rows), Decimal(0))
        for ref, rows in _confirmed(job, LedgerKind.BONUS).items()
    }
    yield from _bonus_issues(job, ours, paid)
    published = {hit.external_id for hit in hits}
    for entry in LedgerEntry.objects.filter(job=job, kind=LedgerKind.CREATE_HIT, state=LedgerState.CONFIRMED):
        if entry.result_ref not in published:
            yield _issue(
                job, IssueKind.HIT, entry.result_ref, "created in the ledger", "not on any HIT", entry
            )


def _prolific(job: Job) -> Iterable[ReconciliationIssue]:
    client = prolific_client()
    market: dict[str, tuple[str, str]] = {}
    for study_id in job.hits.exclude(external_id="").values_list("external_id", flat=True).distinct():
        for sub in client.list_submissions(study_id):
            market[sub.submission_id] = (sub.status, sub.participant_id)
    yield from _compare(job, market, PROLIFIC_STATES)
    # Bonuses show only on a submission's own record: read those the ledger paid or tried to pay.
    touched = LedgerEntry.objects.filter(job=job, kind=LedgerKind.BONUS).values_list("market_ref", flat=True)
    paid = {ref: Decimal(sum(client.bonuses_paid(ref))) / 100 for ref in sorted(set(touched)) if ref}
    ours: dict[str, Decimal] = defaultdict(Decimal)
    for rows in _confirmed(job, LedgerKind.PAY).values():
        for row in rows:
            ours[str(row.params.get("submission_id", ""))] += row.amount
    yield from _bonus_issues(job, ours, paid)


def _open_entries(job: Job) -> list[ReconciliationIssue]:
    return [
        _issue(
            job,
            IssueKind.OPEN_ENTRY,
            entry.market_ref or entry.token,
            f"{entry.kind} {entry.state}",
            "",
            entry,
        )
        for entry in LedgerEntry.objects.filter(job=job, state__in=LedgerState.open())
    ]
