"""The ledger's records as a market may read and write them (`market_interface.money.Records`): handed
by the engine and reconciliation to a market's money hooks and its reconciliation, so the market
imports nothing of the ledger."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from annotation.ledger import intents, wants
from annotation.ledger.models import IssueKind, LedgerEntry, RowKind, RowState
from annotation.market_interface.money import Discrepancy, Row, issue
from annotation.models import Assignment, AssignmentState


def as_entry(row: Row) -> LedgerEntry:
    """A row a market handed back (a follow-up, a row it reads), as the ledger's own."""
    return row if isinstance(row, LedgerEntry) else LedgerEntry.objects.get(pk=row.pk)


def assignment_issues(
    job_id: int, market: Mapping[str, tuple[str, str]], states: Mapping[str, str], reviews: Mapping[str, str]
) -> Iterable[Discrepancy]:
    """`Records.compare_assignments`: our assignments' states and confirmed reviews against the market's."""
    local = {a.external_id: a for a in Assignment.objects.filter(job_id=job_id).exclude(external_id="")}
    approved, rejected = confirmed_rows(job_id, RowKind.APPROVE), confirmed_rows(job_id, RowKind.REJECT)
    for ref, (status, _worker) in market.items():
        ours = local.get(ref)
        expected = states.get(status)
        if ours is None and expected is not None and expected != "accepted":
            yield issue(IssueKind.STATE, ref, "no such assignment", status)
        elif ours is not None and expected is not None and ours.state != expected:
            yield issue(IssueKind.STATE, ref, ours.state, status)
        for kind, rows in ((RowKind.APPROVE, approved), (RowKind.REJECT, rejected)):
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


# The ledger's column each narrowing of `Records.rows` filters (`params` filters by its keys).
NARROWED_BY = {"market": "market", "job_id": "job_id", "market_ref": "market_ref", "states": "state__in"}


class LedgerRecords:
    def rows(self, kind: str, **narrowed: Any) -> list[Row]:
        """`Records.rows`: each narrowing given (not None) filters its column."""
        params = narrowed.pop("params", None) or {}
        given = {NARROWED_BY[name]: value for name, value in narrowed.items() if value is not None}
        found = LedgerEntry.objects.filter(kind=kind, **given)
        return list(found.filter(**{f"params__{key}": value for key, value in params.items()}))

    def keep_result(self, row: Row, ref: str) -> None:
        LedgerEntry.objects.filter(pk=row.pk).update(result_ref=ref)

    def unwanted(self, row: Row, *, publishing: bool = False) -> str:
        return wants.unwanted(as_entry(row), publishing=publishing)

    def follow_up(self, row: Row, kind: str, *, market_ref: str, params: Mapping[str, Any]) -> Row:
        return intents.record(
            kind,
            row.market,
            [row.token],
            job_id=row.job_id,
            assignment_id=row.assignment_id,
            market_ref=market_ref,
            worker_ref=row.worker_ref,
            amount=row.amount,
            currency=row.currency,
            params=dict(params),
        )

    # Reconciliation's comparison, the ledger's own function under the interface's name.
    compare_assignments = staticmethod(assignment_issues)


RECORDS = LedgerRecords()


def confirmed_rows(job_id: int, kind: str) -> dict[str, list[LedgerEntry]]:
    rows: dict[str, list[LedgerEntry]] = defaultdict(list)
    for entry in LedgerEntry.objects.filter(job_id=job_id, kind=kind, state=RowState.CONFIRMED):
        rows[entry.market_ref].append(entry)
    return rows
