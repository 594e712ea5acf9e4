"""Stateful fake MTurk and Prolific that refuse any paying call without a claimed ledger row.

MTurk: a real boto3 client (so botocore validates every request against AWS's API model) whose
`before-call` hook answers from an in-memory market instead of the network, the way Stubber does,
but in any order. Prolific: a requests transport adapter over the same kind of in-memory market.

The guard: when a call that creates work or pays reaches either market, the ledger row for it
must already be committed in state `sent` (claimed, then marked sent, by annotation.payments),
and the caller must not be inside a transaction (or the row would not be durable yet).
Every breach is recorded in `violations`; tests assert there are none.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import boto3
import requests
from botocore.awsrequest import AWSResponse
from django.db import connection
from requests.adapters import BaseAdapter

from annotation.ledger import LedgerEntry, LedgerKind, LedgerState


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
        if op in self.PAYING:
            self.guard.check(f"mturk {op}", self._rows(op, params))
        try:
            body = getattr(self, f"_{op}")(params)
        except KeyError as missing:
            error = {"Error": {"Code": "RequestError", "Message": f"no such thing: {missing}"}}
            return AWSResponse("https://fake", 400, {}, None), error
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


class FakeProlific(BaseAdapter):
    """A Prolific workspace in memory, mounted on a requests session."""

    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard
        self.ids = itertools.count(1)
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, dict[str, Any]] = {}
        self.bulks: dict[str, dict[str, Any]] = {}

    def submit(self, study_id: str, submission_id: str, participant_id: str) -> None:
        self.submissions[submission_id] = {
            "id": submission_id,
            "participant_id": participant_id,
            "status": "AWAITING REVIEW",
            "study_id": study_id,
            "bonus_payments": [],
        }

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        path = urlsplit(str(request.url)).path
        body = json.loads(request.body) if request.body else {}
        status, reply = self._route(str(request.method), path, body)
        response = requests.Response()
        response.status_code = status
        response._content = json.dumps(reply).encode()
        response.headers["Content-Type"] = "application/json"
        response.url, response.request = str(request.url), request
        return response

    def close(self) -> None:
        pass

    def _guard(self, what: str, **match: Any) -> None:
        self.guard.check(f"prolific {what}", LedgerEntry.objects.filter(provider="prolific", **match))

    def _route(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        parts = path.strip("/").split("/")[2:]  # after api/v1
        if method == "GET" and parts[0] == "workspaces":
            return 200, {"currency_code": "GBP", "available_balance": 1_000_000}
        if parts[0] == "studies":
            return self._studies(method, parts[1:], body)
        if parts[0] == "submissions":
            return self._submissions(method, parts[1:], body)
        if parts[0] == "bulk-bonus-payments" and method == "POST":
            bulk = self.bulks[parts[1]]
            self._guard("pay bonus", kind=LedgerKind.PAY, market_ref=parts[1])
            for submission_id, cents in bulk["lines"]:
                self.submissions[submission_id]["bonus_payments"].append(cents)
            return 202, {}
        return 404, {"error": path}

    def _studies(self, method: str, parts: list[str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if not parts:  # POST studies/: a draft study
            job_id = int(re.sub(r"\D", "", body["internal_name"]))
            self._guard("create study", kind=LedgerKind.CREATE_HIT, job_id=job_id)
            study_id = f"study{next(self.ids):019d}"
            self.studies[study_id] = {
                "id": study_id,
                "status": "UNPUBLISHED",
                "total_available_places": body["total_available_places"],
            }
            return 201, self.studies[study_id]
        study = self.studies[parts[0]]
        if method == "PATCH":
            self._guard("add places", kind=LedgerKind.EXTEND, market_ref=study["id"])
            study["total_available_places"] = body["total_available_places"]
        elif parts[1:] == ["submissions"]:
            found = [s for s in self.submissions.values() if s["study_id"] == study["id"]]
            return 200, {"results": found, "_links": {"next": {"href": None}}}
        elif parts[1:] == ["transition"]:
            if body["action"] == "PUBLISH":
                self._guard("publish study", kind=LedgerKind.CREATE_HIT, result_ref=study["id"])
            study["status"] = {"PUBLISH": "ACTIVE", "STOP": "AWAITING REVIEW"}.get(body["action"], "PAUSED")
        return 200, study

    def _submissions(self, method: str, parts: list[str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if parts == ["bonus-payments"]:
            lines = [line.split(",") for line in body["csv_bonuses"].splitlines()]
            for submission_id, _ in lines:
                self._guard("set up bonus", kind=LedgerKind.BONUS, market_ref=submission_id)
            bulk_id = f"bulk{next(self.ids):020d}"
            cents = [(ref, int(Decimal(amount) * 100)) for ref, amount in lines]
            self.bulks[bulk_id] = {"lines": cents}
            total = sum(Decimal(amount) for _, amount in lines)
            return 201, {
                "id": bulk_id,
                "study": body["study_id"],
                "amount": str(total),
                "fees": "0",
                "total_amount": str(total),
            }
        submission = self.submissions[parts[0]]
        if method == "POST":
            action = body["action"]
            kind = LedgerKind.APPROVE if action == "APPROVE" else LedgerKind.REJECT
            self._guard(f"{action.lower()} submission", kind=kind, market_ref=submission["id"])
            submission["status"] = "APPROVED" if action == "APPROVE" else "REJECTED"
        return 200, submission
