"""Stateful fake MTurk and Prolific that refuse any paying call without a claimed ledger row.

MTurk: a real boto3 client (so botocore validates every request against AWS's API model) whose
`before-call` hook answers from an in-memory market instead of the network, the way Stubber does,
but in any order. Prolific: a requests transport adapter over the same kind of in-memory market,
every request and answer checked against Prolific's published schema (prolific_schema.py).

The guard: when a call that creates work or pays reaches either market, the ledger row for it
must already be committed in state `sent` (claimed, then marked sent, by annotation.ledger.engine),
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
from urllib.parse import parse_qs, urlsplit

import boto3
import requests
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ReadTimeoutError
from django.db import connection
from requests.adapters import BaseAdapter

from annotation.ledger.models import LedgerEntry, LedgerKind, LedgerState
from tests.annotation.prolific_schema import check_request, check_response, transitions


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


class FakeProlific(BaseAdapter):
    """A Prolific workspace in memory, mounted on a requests session, held to Prolific's schema.

    Every request must be one Prolific documents (tests/annotation/prolific_schema.py) and every
    answer the fake gives must match the documented response, so the fake cannot drift from the API.
    It keeps Prolific's rules: study transitions only from the statuses the API accepts (else a 400
    in Prolific's error format), lists paged by limit/offset with `meta.count`, money in cents,
    bonuses that land on the submission when paid (or, with `settle_later`, once `settle()` runs).
    """

    PROJECT, WORKSPACE = "project0000000000000000001", "workspace00000000000000001"

    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard
        self.ids = itertools.count(1)
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, dict[str, Any]] = {}
        self.bulks: dict[str, dict[str, Any]] = {}
        self.groups: dict[str, dict[str, Any]] = {}
        self.settle_later = False
        self.unsettled: list[tuple[str, int]] = []
        self.throttled: set[str] = set()  # operations answered 429 once
        self.lost: set[str] = set()  # operations carried out once, their reply lost on the way back
        self.failed_after: set[str] = set()  # operations carried out once, then answered 502
        self.down = False  # every request fails to connect (the market is unreachable)
        self.effects: Counter[str] = Counter()  # what changed at the market, per operation
        self.rejections: dict[str, tuple[str, str]] = {}  # submission → (message, category)
        self.calls: list[tuple[str, str]] = []  # (operation, path) of every request

    def submit(self, study_id: str, submission_id: str, participant_id: str) -> None:
        self.submissions[submission_id] = {
            "id": submission_id,
            "participant_id": participant_id,
            "status": "AWAITING REVIEW",
            "study_id": study_id,
            "started_at": "2026-11-02T10:00:00Z",
            "bonus_payments": [],
        }

    def settle(self) -> None:
        """Prolific pays bonuses "in the following minutes": land the ones paid so far."""
        for submission_id, cents in self.unsettled:
            self.submissions[submission_id]["bonus_payments"].append(cents)
        self.unsettled.clear()

    def throttle(self, operation: str) -> None:
        """Answer the next request to `operation` (e.g. "pay-bonus-payments") with a 429."""
        self.throttled.add(operation)

    def lose_reply(self, operation: str) -> None:
        """Carry out the next request to `operation`, then lose its reply (a read timeout)."""
        self.lost.add(operation)

    def fail_after(self, operation: str) -> None:
        """Carry out the next request to `operation`, then answer 502 (a gateway that lost the reply)."""
        self.failed_after.add(operation)

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        url, method = str(request.url), str(request.method)
        if self.down:
            raise requests.ConnectionError("the fake Prolific is down")
        body = json.loads(request.body) if request.body else None
        found = check_request(method, url, body)
        self.calls.append((found.operation, urlsplit(url).path))
        status, reply = self._answer(found.operation, method, urlsplit(url), body or {})
        check_response(found, status, reply)
        if found.operation in self.lost:
            self.lost.discard(found.operation)
            raise requests.ReadTimeout(f"the reply to {found.operation} was lost")
        if found.operation in self.failed_after:
            self.failed_after.discard(found.operation)
            status, reply = 502, _error(502, "Bad gateway", "The upstream reply was lost.")
        response = requests.Response()
        response.status_code = status
        response._content = json.dumps(reply).encode()
        response.headers["Content-Type"] = "application/json"
        response.url, response.request = url, request
        return response

    def close(self) -> None:
        pass

    def _guard(self, what: str, **match: Any) -> None:
        self.guard.check(f"prolific {what}", LedgerEntry.objects.filter(provider="prolific", **match))

    def _answer(self, operation: str, method: str, url: Any, body: dict[str, Any]) -> tuple[int, Any]:
        if operation in self.throttled:
            self.throttled.discard(operation)
            return 429, _error(429, "Too many requests", "Request was throttled.")
        parts = url.path.strip("/").split("/")[2:]  # after api/v1
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        handler = getattr(self, "_" + operation.replace("-", "_"))
        answer: tuple[int, Any] = handler(parts, query, body)
        return answer

    # -- operations, named as in Prolific's reference -------------------------------------------

    def _get_project(self, parts: list[str], query: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        return 200, {"id": parts[1], "title": "Stancework", "workspace": self.WORKSPACE}

    def _get_workspace_balance(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        return 200, {"currency_code": "GBP", "total_balance": 1_000_000, "available_balance": 1_000_000}

    def _get_participant_groups(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        found = [g for g in self.groups.values() if g["workspace_id"] == query["workspace_id"]]
        return 200, _page([_group(g) for g in found], query)

    def _create_participant_group(
        self, parts: list[str], query: dict[str, str], body: Any
    ) -> tuple[int, Any]:
        self.effects["create-participant-group"] += 1
        group_id = f"group{next(self.ids):019d}"
        self.groups[group_id] = {"id": group_id, "name": body["name"], "workspace_id": body["workspace_id"]}
        self.groups[group_id]["members"] = list(body.get("participant_ids", []))
        return 201, _group(self.groups[group_id])

    def _add_to_participant_group(
        self, parts: list[str], query: dict[str, str], body: Any
    ) -> tuple[int, Any]:
        members = self.groups[parts[1]]["members"]
        members += [pid for pid in body["participant_ids"] if pid not in members]
        return 200, {"results": [{"participant_id": pid} for pid in members]}

    def _remove_from_participant_group(
        self, parts: list[str], query: dict[str, str], body: Any
    ) -> tuple[int, Any]:
        members = self.groups[parts[1]]["members"]
        members[:] = [pid for pid in members if pid not in body["participant_ids"]]
        return 200, {"results": [{"participant_id": pid} for pid in members]}

    def _create_study(self, parts: list[str], query: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        found = re.search(r"job (\d+)", body["internal_name"])
        assert found, f"an internal name without its job: {body['internal_name']!r}"
        self._guard("create study", kind=LedgerKind.CREATE_HIT, job_id=int(found[1]))
        self.effects["create-study"] += 1
        study_id = f"study{next(self.ids):019d}"
        self.studies[study_id] = {
            "id": study_id,
            "internal_name": body["internal_name"],
            "status": "UNPUBLISHED",
            "total_available_places": body["total_available_places"],
            "places_taken": 0,
            "reward": body["reward"],
            "project": body["project"],
            "filters": body.get("filters", []),
            "sent": body,
        }
        return 201, self.studies[study_id]

    def _get_project_studies(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        page, size = int(query.get("page", 1)), int(query.get("page_size", 20))
        found = [s for s in self.studies.values() if s["project"] == parts[1]]
        return 200, {"results": found[(page - 1) * size : page * size]}

    def _calculate_study_cost(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        rewards = body["reward"] * body["total_available_places"]
        fees = round(rewards * Decimal("0.3334"))
        return 200, {"total_cost": rewards + fees + round(fees * Decimal("0.2"))}

    def _get_study(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        return 200, self.studies[parts[1]]

    def _update_study(self, parts: list[str], query: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        study = self.studies[parts[1]]
        self._guard("add places", kind=LedgerKind.EXTEND, market_ref=study["id"])
        study["total_available_places"] = body["total_available_places"]
        return 200, study

    def _transition_study(
        self, parts: list[str], query: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, Any]:
        study, action = self.studies[parts[1]], body["action"]
        rule = transitions()[action]
        if study["status"] not in rule["from"]:
            return 400, _error(400, "Invalid transition", f"{action} is not allowed from {study['status']}")
        if action == "PUBLISH":
            self._guard("publish study", kind=LedgerKind.CREATE_HIT, result_ref=study["id"])
        self.effects[f"{action.lower()}-study"] += 1
        study["status"] = rule["to"]
        return 200, study

    def _get_study_submissions(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        found = [s for s in self.submissions.values() if s["study_id"] == parts[1]]
        return 200, _page([_short(s) for s in found], query)

    def _get_submission(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        return 200, _detail(self.submissions[parts[1]])

    def _transition_submission(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        submission, action = self.submissions[parts[1]], body["action"]
        kind = LedgerKind.APPROVE if action == "APPROVE" else LedgerKind.REJECT
        self._guard(f"{action.lower()} submission", kind=kind, market_ref=submission["id"])
        target = "APPROVED" if action == "APPROVE" else "REJECTED"
        if submission["status"] == target:
            return 200, _detail(submission)  # Prolific: "the second request will be ignored"
        if submission["status"] != "AWAITING REVIEW":
            return 400, _error(
                400, "Invalid transition", f"{action} is not allowed from {submission['status']}"
            )
        self.effects[f"{action.lower()}-submission"] += 1
        submission["status"] = target
        if action == "REJECT":
            self.rejections[submission["id"]] = (body["message"], body["rejection_category"])
        return 200, _detail(submission)

    def _create_bonus_payments(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        lines = [line.split(",") for line in body["csv_bonuses"].splitlines()]
        for submission_id, _ in lines:
            self._guard("set up bonus", kind=LedgerKind.BONUS, market_ref=submission_id)
        self.effects["set-up-bonus"] += 1
        bulk_id = f"bulk{next(self.ids):020d}"
        cents = [(ref, int(Decimal(amount) * 100)) for ref, amount in lines]
        self.bulks[bulk_id] = {"lines": cents}
        amount = sum(c for _, c in cents)
        fees = round(amount * Decimal("0.3334"))
        vat = round(fees * Decimal("0.2"))
        reply = {"id": bulk_id, "study": body["study_id"], "amount": amount, "fees": fees, "vat": vat}
        return 201, {**reply, "total_amount": amount + fees + vat}

    def _pay_bonus_payments(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        self._guard("pay bonus", kind=LedgerKind.PAY, market_ref=parts[1])
        self.effects["pay-bonus"] += 1
        self.unsettled += self.bulks[parts[1]]["lines"]
        if not self.settle_later:
            self.settle()
        return 202, f"Bulk bonus payment with ID {parts[1]} is being processed asynchronously."


def _error(status: int, title: str, detail: str) -> dict[str, Any]:
    return {"error": {"status": status, "error_code": status * 1000 + 1, "title": title, "detail": detail}}


def _page(results: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
    offset, limit = int(query.get("offset", 0)), int(query.get("limit", 20))
    return {"results": results[offset : offset + limit], "meta": {"count": len(results)}}


def _group(group: dict[str, Any]) -> dict[str, Any]:
    shown = {k: v for k, v in group.items() if k != "members"}
    return {**shown, "participant_count": len(group["members"]), "is_deleted": False}


def _short(submission: dict[str, Any]) -> dict[str, Any]:
    """A submission as the study's list shows it (with `participant_id`)."""
    keep = ("id", "participant_id", "status", "started_at")
    return {k: submission[k] for k in keep} | {"completed_at": None, "study_code": None}


def _detail(submission: dict[str, Any]) -> dict[str, Any]:
    """A submission read on its own (with `participant`, and its bonuses in cents)."""
    shown = {k: v for k, v in submission.items() if k != "participant_id"}
    return {**shown, "participant": submission["participant_id"]}
