"""A person's decision on an unclear row: the one way, besides the market's own records, out of UNCLEAR.

An unclear row is a call that went out and whose outcome nobody knows (a pay call whose reply was lost,
and whose bonus has not shown on the submission). No timer decides it. A person with
`annotation.spend_money`, having looked at the evidence (the row's excerpt and what the market showed
when it was last read), says whether the money moved; the row records who decided and why.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from annotation.ledger.models import LedgerEntry, RowState

SPEND_MONEY = "annotation.spend_money"


class DecisionError(PermissionError):
    """The person may not decide unclear rows, or the row is no longer unclear."""


def decide_unclear(entry_id: int, *, moved: bool, user: object, evidence: str) -> LedgerEntry:
    """Mark an unclear row confirmed (`moved`) or failed, naming the person and what they saw."""
    if not getattr(user, "has_perm", lambda perm: False)(SPEND_MONEY):
        raise DecisionError(f"{user} may not decide unclear payments (needs {SPEND_MONEY})")
    if not evidence.strip():
        raise DecisionError("a decision names the evidence it rests on")
    note = f"decided by {user} ({'money moved' if moved else 'money did not move'}): {evidence.strip()}"
    state = RowState.CONFIRMED if moved else RowState.FAILED
    fields = {"state": state, "finished_at": timezone.now(), "response_excerpt": note[:2000]}
    if not moved:
        fields["error"] = note[:500]
    if not LedgerEntry.objects.filter(pk=entry_id, state=RowState.UNCLEAR).update(**fields):
        raise DecisionError(f"ledger row {entry_id} is no longer unclear")
    return LedgerEntry.objects.get(pk=entry_id)


def unclear_rows(job_id: int | None = None) -> QuerySet[LedgerEntry]:
    """Unclear rows (of one job, or all): what the ledger admin and the job's pages show as money in doubt."""
    rows = LedgerEntry.objects.filter(state=RowState.UNCLEAR)
    return rows.filter(job_id=job_id) if job_id is not None else rows
