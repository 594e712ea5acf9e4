"""MTurk's reconciliation step: assignments and bonus payments per HIT, and every HIT we created."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from annotation.market_interface import money
from annotation.markets.mturk.client import mturk_client
from annotation.markets.mturk.states import ASSIGNMENT_STATES, REVIEWED
from annotation.models import Job


def reconcile_mturk_job(job: Job, records: money.Records) -> Iterable[money.Discrepancy]:
    client = mturk_client()
    market: dict[str, tuple[str, str]] = {}
    paid: dict[str, Decimal] = defaultdict(Decimal)
    hits = list(job.hits.exclude(external_id=""))
    for hit in hits:
        for found in client.list_assignments(hit.external_id):
            market[found.assignment_id] = (found.status, found.worker_id)
        for bonus in client.list_bonuses(hit_id=hit.external_id):
            paid[bonus.assignment_id] += bonus.amount
    yield from records.compare_assignments(job.pk, market, ASSIGNMENT_STATES, REVIEWED)
    ours: dict[str, Decimal] = defaultdict(Decimal)
    for row in records.rows(money.RowKind.BONUS, job_id=job.pk, states=[money.RowState.CONFIRMED]):
        ours[row.market_ref] += row.amount
    yield from money.bonus_issues(ours, paid)
    published = {hit.external_id for hit in hits}
    for entry in records.rows(money.RowKind.CREATE_HIT, job_id=job.pk, states=[money.RowState.CONFIRMED]):
        if entry.result_ref not in published:
            yield money.issue(
                money.IssueKind.HIT, entry.result_ref, "created in the ledger", "not on any HIT", entry
            )
