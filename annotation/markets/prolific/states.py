"""Prolific's submission statuses in our vocabulary, written once."""

from __future__ import annotations

from annotation.ledger.models import LedgerKind
from annotation.models import AssignmentState

AWAITING_REVIEW = "AWAITING REVIEW"
APPROVED = "APPROVED"
PARTIALLY_APPROVED = "PARTIALLY APPROVED"
REJECTED = "REJECTED"

# A submission's status at Prolific → our assignment state. Every documented status is here.
ASSIGNMENT_STATES: dict[str, str] = {
    "RESERVED": AssignmentState.ACCEPTED,  # a place held for a participant who has not started
    "ACTIVE": AssignmentState.ACCEPTED,
    AWAITING_REVIEW: AssignmentState.SUBMITTED,
    APPROVED: AssignmentState.APPROVED,
    PARTIALLY_APPROVED: AssignmentState.APPROVED,  # reviewed and paid, in part
    REJECTED: AssignmentState.REJECTED,
    "RETURNED": AssignmentState.RETURNED,
    "SCREENED OUT": AssignmentState.RETURNED,  # left at screening: no work of theirs to review
    "TIMED-OUT": AssignmentState.EXPIRED,
}
# The status a confirmed review leaves the submission in at Prolific.
REVIEWED: dict[str, str] = {LedgerKind.APPROVE: APPROVED, LedgerKind.REJECT: REJECTED}
# Statuses in which Prolific accepts each paying call.
PAYABLE: dict[str, tuple[str, ...]] = {
    LedgerKind.APPROVE: (AWAITING_REVIEW,),
    LedgerKind.REJECT: (AWAITING_REVIEW,),
    LedgerKind.BONUS: (AWAITING_REVIEW, APPROVED, PARTIALLY_APPROVED),
}
