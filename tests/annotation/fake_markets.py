"""Stateful fake markets that refuse any paying call without a claimed ledger row.

MTurk: a real boto3 client (so botocore validates every request against AWS's API model) whose
`before-call` hook answers from an in-memory market instead of the network, the way Stubber does,
but in any order. Prolific: the platform's own fake (annotation/markets/prolific/fake.py, every
request and answer checked against Prolific's published schema), with this guard on its paying calls.

The guard: when a call that creates work or pays reaches either market, the ledger row for it
must already be committed in state `sent` (claimed, then marked sent, by annotation.ledger.engine),
and the caller must not be inside a transaction (or the row would not be durable yet).
Every breach is recorded in `violations`; tests assert there are none.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import boto3
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ReadTimeoutError
from django.db import connection

from annotation.ledger.models import LedgerEntry, LedgerKind, LedgerState
from annotation.markets.prolific.fake import FakeProlific

# The ledger row each of the fake Prolific's paying calls needs: its kind, and the field that
# holds what the call acts on (see annotation.markets.prolific.fake.PayingHook).
PROLIFIC_ROWS: dict[str, tuple[str, str]] = {
    "create study": (LedgerKind.CREATE_HIT, "job_id"),
    "publish study": (LedgerKind.CREATE_HIT, "result_ref"),
    "add places": (LedgerKind.EXTEND, "market_ref"),
    "approve submission": (LedgerKind.APPROVE, "market_ref"),
    "reject submission": (LedgerKind.REJECT, "market_ref"),
    "set up bonus": (LedgerKind.BONUS, "market_ref"),
    "pay bonus": (LedgerKind.PAY, "market_ref"),
}


class Guard:
    """Checks each paying call against the ledger, and keeps what it saw."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self.paying: Counter[str] = Counter()

    def check(self, what: str, rows: Any) -> None:
        self.paying[what] += 1
        if connection.in_atomic_block:
            self.violations.append(f"{what} called inside a transaction")
        if not rows.filter(state=LedgerState.SENT).exists():
            self.violations.append(f"{what} called without a sent ledger row")

    def prolific(self, what: str, ref: str) -> None:
        """The fake Prolific's hook: `what` is about to act on `ref`."""
        kind, field = PROLIFIC_ROWS[what]
        match = {field: int(ref) if field == "job_id" else ref}
        self.check(f"prolific {what}", LedgerEntry.objects.filter(provider="prolific", kind=kind, **match))


def _market_id(prefix: str, n: int) -> str:
    return f"{prefix}{n:0{30 - len(prefix)}d}"


class FakeMTurk:
    """An MTurk requester account in memory, behind a real boto3 client."""

    PAYING = {
        "CreateHITWithHITType",
        "CreateAdditionalAssignmentsForHIT",
        "ApproveAssignment",
        "RejectAssignment",
        "SendBonus",
    }

    def __init__(self, guard: Guard) -> None:
        self.guard = guard
        self.ids = itertools.count(1)
        self.hits: dict[str, dict[str, Any]] = {}
        self.assignments: dict[str, dict[str, Any]] = {}
        self.bonuses: list[dict[str, Any]] = []
        self.lost: set[str] = set()  # operations carried out once, their reply lost on the way back
        self.effects: Counter[str] = Counter()  # what changed at the market, per operation
        self.calls: Counter[str] = Counter()  # requests received, per operation
        self.client = boto3.client(
            "mturk", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
        )
        self.client.meta.events.register("before-parameter-build.mturk", self._keep_params)
        self.client.meta.events.register("before-call.mturk", self._answer)

    def submit(self, hit_id: str, assignment_id: str, worker_id: str) -> None:
        """A worker submitted at MTurk (after our page posted to externalSubmit)."""
        self.assignments[assignment_id] = {
            "AssignmentId": assignment_id,
            "WorkerId": worker_id,
            "HITId": hit_id,
            "AssignmentStatus": "Submitted",
        }

    def _keep_params(self, params: dict[str, Any], context: dict[str, Any], **kwargs: Any) -> None:
        context["fake_params"] = dict(params)

    def _answer(
        self, model: Any, context: dict[str, Any], **kwargs: Any
    ) -> tuple[AWSResponse, dict[str, Any]]:
        op, params = model.name, context["fake_params"]
        self.calls[op] += 1
        if op in self.PAYING:
            self.guard.check(f"mturk {op}", self._rows(op, params))
        try:
            body = getattr(self, f"_{op}")(params)
        except KeyError as missing:
            error = {"Error": {"Code": "RequestError", "Message": f"no such thing: {missing}"}}
            return AWSResponse("https://fake", 400, {}, None), error
        if op in self.lost:
            self.lost.discard(op)
            raise ReadTimeoutError(endpoint_url=f"https://fake ({op} done, its reply lost)")
        return AWSResponse("https://fake", 200, {}, None), body

    def _rows(self, op: str, params: dict[str, Any]) -> Any:
        if "UniqueRequestToken" in params:
            return LedgerEntry.objects.filter(token=params["UniqueRequestToken"])
        kind = LedgerKind.APPROVE if op == "ApproveAssignment" else LedgerKind.REJECT
        return LedgerEntry.objects.filter(provider="mturk", kind=kind, market_ref=params["AssignmentId"])

    # -- operations, named as in the API ------------------------------------------------------
    def _GetAccountBalance(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"AvailableBalance": "10000.00"}

    def _CreateHITType(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"HITTypeId": _market_id("TYPE", 1)}

    def _CreateHITWithHITType(self, p: dict[str, Any]) -> dict[str, Any]:
        hit_id = _market_id("HIT", next(self.ids))
        self.hits[hit_id] = {
            "HITId": hit_id,
            "HITTypeId": p["HITTypeId"],
            "MaxAssignments": p["MaxAssignments"],
            "HITStatus": "Assignable",
            "RequesterAnnotation": p.get("RequesterAnnotation", ""),
        }
        return {"HIT": self.hits[hit_id]}

    def _GetHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"HIT": self.hits[p["HITId"]]}

    def _ListHITs(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"HITs": list(self.hits.values()), "NumResults": len(self.hits)}

    def _CreateAdditionalAssignmentsForHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        self.hits[p["HITId"]]["MaxAssignments"] += p["NumberOfAdditionalAssignments"]
        return {}

    def _UpdateExpirationForHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        self.hits[p["HITId"]]["HITStatus"] = "Reviewable"
        return {}

    def _ListAssignmentsForHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        found = [a for a in self.assignments.values() if a["HITId"] == p["HITId"]]
        return {"Assignments": found, "NumResults": len(found)}

    def _GetAssignment(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"Assignment": self.assignments[p["AssignmentId"]]}

    def _review(self, p: dict[str, Any], status: str) -> dict[str, Any]:
        found = self.assignments[p["AssignmentId"]]
        if found["AssignmentStatus"] != "Submitted":
            raise KeyError(f"{p['AssignmentId']} is {found['AssignmentStatus']}")
        found["AssignmentStatus"] = status
        self.effects[status] += 1
        return {}

    def _ApproveAssignment(self, p: dict[str, Any]) -> dict[str, Any]:
        return self._review(p, "Approved")

    def _RejectAssignment(self, p: dict[str, Any]) -> dict[str, Any]:
        return self._review(p, "Rejected")

    def _SendBonus(self, p: dict[str, Any]) -> dict[str, Any]:
        self.bonuses.append(
            {
                "AssignmentId": p["AssignmentId"],
                "WorkerId": p["WorkerId"],
                "BonusAmount": p["BonusAmount"],
                "Reason": p["Reason"],
            }
        )
        return {}

    def _ListBonusPayments(self, p: dict[str, Any]) -> dict[str, Any]:
        def hit_of(bonus: dict[str, Any]) -> str:
            return str(self.assignments[bonus["AssignmentId"]]["HITId"])

        found = [
            b
            for b in self.bonuses
            if b["AssignmentId"] == p.get("AssignmentId") or hit_of(b) == p.get("HITId")
        ]
        return {"BonusPayments": found, "NumResults": len(found)}

    def _AssociateQualificationWithWorker(self, p: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _DisassociateQualificationFromWorker(self, p: dict[str, Any]) -> dict[str, Any]:
        return {}


class GuardedProlific(FakeProlific):
    """The platform's fake Prolific with the guard on every call that creates work or pays."""

    def __init__(self, guard: Guard) -> None:
        super().__init__(on_paying=guard.prolific)
        self.guard = guard
