"""What MTurk answers, as plain records: its HITs, assignments and bonuses as its API describes them
(read from its answers by `hit_from` and `assignment_from`), and what a paying or creating call achieved.

Pure: no boto3, no Django; `client.py` makes the calls and the fake (fake.py) answers in the same shapes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class MarketAssignment:
    assignment_id: str
    worker_id: str
    hit_id: str
    status: str  # Submitted | Approved | Rejected
    submit_time: dt.datetime | None
    answer: str


@dataclass(frozen=True)
class MarketBonus:
    assignment_id: str
    worker_id: str
    amount: Decimal
    reason: str
    granted_at: dt.datetime | None


@dataclass(frozen=True)
class MarketHit:
    hit_id: str
    hit_type_id: str
    max_assignments: int
    status: str
    expiration: dt.datetime | None
    annotation: str


@dataclass(frozen=True)
class Outcome:
    """What a paying or creating call achieved; `replayed` means MTurk had it already."""

    ref: str
    replayed: bool = False


def hit_from(raw: dict[str, Any]) -> MarketHit:
    return MarketHit(
        hit_id=raw["HITId"],
        hit_type_id=raw.get("HITTypeId", ""),
        max_assignments=int(raw.get("MaxAssignments", 0)),
        status=raw.get("HITStatus", ""),
        expiration=raw.get("Expiration"),
        annotation=raw.get("RequesterAnnotation", ""),
    )


def assignment_from(raw: dict[str, Any]) -> MarketAssignment:
    return MarketAssignment(
        assignment_id=raw["AssignmentId"],
        worker_id=raw["WorkerId"],
        hit_id=raw["HITId"],
        status=raw["AssignmentStatus"],
        submit_time=raw.get("SubmitTime"),
        answer=raw.get("Answer", ""),
    )
