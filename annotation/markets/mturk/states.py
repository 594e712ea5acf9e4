"""MTurk's assignment statuses in our vocabulary, written once for the market, its calls and reconcile."""

from __future__ import annotations

from annotation.market_interface.money import RowKind
from annotation.models import AssignmentState

SUBMITTED = "Submitted"
APPROVED = "Approved"
REJECTED = "Rejected"

# An assignment's status at MTurk → our assignment state.
ASSIGNMENT_STATES: dict[str, str] = {
    SUBMITTED: AssignmentState.SUBMITTED,
    APPROVED: AssignmentState.APPROVED,
    REJECTED: AssignmentState.REJECTED,
}
# The status a confirmed review leaves the assignment in at MTurk.
REVIEWED: dict[str, str] = {RowKind.APPROVE: APPROVED, RowKind.REJECT: REJECTED}
# Statuses in which MTurk accepts each paying call.
PAYABLE: dict[str, tuple[str, ...]] = {
    RowKind.APPROVE: (SUBMITTED,),
    RowKind.REJECT: (SUBMITTED,),
    RowKind.BONUS: (SUBMITTED, APPROVED),
}
