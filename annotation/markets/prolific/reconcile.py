"""Prolific's reconciliation step: submissions per study, and the bonuses on each submission we paid."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from annotation.ledger.models import LedgerEntry, LedgerKind, ReconciliationIssue
from annotation.ledger.reconcile import bonus_issues, compare_assignments, confirmed_rows
from annotation.markets.prolific.client import prolific_client
from annotation.markets.prolific.states import ASSIGNMENT_STATES, REVIEWED
from annotation.models import Job


def reconcile_prolific_job(job: Job) -> Iterable[ReconciliationIssue]:
    client = prolific_client()
    market: dict[str, tuple[str, str]] = {}
    for study_id in job.hits.exclude(external_id="").values_list("external_id", flat=True).distinct():
        for sub in client.list_submissions(study_id):
            market[sub.submission_id] = (sub.status, sub.participant_id)
    yield from compare_assignments(job, market, ASSIGNMENT_STATES, REVIEWED)
    # Bonuses show only on a submission's own record: read those the ledger paid or tried to pay.
    touched = LedgerEntry.objects.filter(job=job, kind=LedgerKind.BONUS).values_list("market_ref", flat=True)
    paid = {ref: Decimal(sum(client.bonuses_paid(ref))) / 100 for ref in sorted(set(touched)) if ref}
    ours: dict[str, Decimal] = defaultdict(Decimal)
    for rows in confirmed_rows(job, LedgerKind.PAY).values():
        for row in rows:
            ours[str(row.params.get("submission_id", ""))] += row.amount
    yield from bonus_issues(job, ours, paid)
