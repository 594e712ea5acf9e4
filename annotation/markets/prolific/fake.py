"""A fake Prolific for tests, the bench and the demo, chosen in settings as Django chooses locmem:

    MARKET_CLIENTS=prolific=annotation.markets.prolific.fake.fake_client

`FakeProlific` is a Prolific workspace in memory behind the real `ProlificClient`: a requests transport
adapter (or, for other processes, a loopback HTTP server: fake_server.py). Every request must be one
Prolific documents and every answer the fake gives must match the documented response (schema.py), so
the fake cannot drift from the API. It keeps Prolific's rules: study transitions only from the statuses
the API accepts (else a 400 in Prolific's error format), lists paged by limit/offset with `meta.count`,
money in cents, an unknown id answered 404, and a pay call that pays every time it comes (Prolific's is
not idempotent). Bonuses land on the submission when paid (or, with `settle_later`, once `settle()`).

It moves as Prolific documents a study moving by itself, each behaviour with its source in schema.json
("sources") and a test of its own (tests/annotation/test_prolific_fake_states.py):
- PUBLISH leaves a study PUBLISHING, "being processed" (study object); it is ACTIVE once read
  `publishing_reads` times (1 by default; more holds it there);
- every place submitted and none in progress: AWAITING REVIEW; every place approved: COMPLETED
  (study object);
- STOP leaves the study AWAITING REVIEW while submissions await review, COMPLETED otherwise, and it
  completes by itself once they are reviewed; a full study whose awaiting submission is rejected or
  returned is PAUSED by Prolific (researcher help, "Pausing & stopping a study");
- lists are served at most `page_cap` per page whatever the size asked (the reference names no
  largest page), project studies in no stable order unless `ordering` is asked (last changed first);
- more places make an AWAITING REVIEW or COMPLETED study ACTIVE again (researcher help, "Increasing
  places");
- a maximum allowed time under 2 + 2t + 2√t minutes (t: the estimated time) is refused with a 400;
- a participant starts a study only as its participant-group filters allow them now (fake_participants.py);
- a 429 carries Retry-After (`throttle(..., retry_after=)`) and did nothing (managing high loads).

Faults on demand: a 429 (`throttle`), a reply lost after the work was done (`lose_reply`, or
`fail_after` for a 502), a market that is down (`down`), and a reply held until a test releases it
(`hold`) so a fault can land at the worst moment. `on_paying` hears of every call that creates work or
pays, before it takes effect: the tests' guard checks each against the ledger.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit

import requests
from requests.adapters import BaseAdapter

from annotation.markets.prolific.client import ProlificClient
from annotation.markets.prolific.fake_faults import FaultsOnDemand, error_reply
from annotation.markets.prolific.fake_participants import NotEligibleError, ParticipantsAtProlific
from annotation.markets.prolific.fake_studies import StudiesByThemselves, too_short_a_time
from annotation.markets.prolific.schema import check_request, check_response, transitions

# Told of each call that creates work or pays, before it acts: what it is ("create study", "publish
# study", "add places", "approve submission", "reject submission", "set up bonus", "pay bonus") and
# what it acts on (the job id in the study's internal name, else the study, submission or bulk id).
PayingHook = Callable[[str, str], None]


class FakeProlific(FaultsOnDemand, StudiesByThemselves, ParticipantsAtProlific, BaseAdapter):
    """A Prolific workspace in memory, mounted on a requests session, held to Prolific's schema."""

    PROJECT, WORKSPACE = "project0000000000000000001", "workspace00000000000000001"

    def __init__(self, on_paying: PayingHook | None = None) -> None:
        super().__init__()
        self.faults_cleared()
        self.on_paying = on_paying
        self.lock = threading.Lock()  # the loopback server answers from several threads
        self.ids = itertools.count(1)
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, dict[str, Any]] = {}
        self.bulks: dict[str, dict[str, Any]] = {}
        self.groups: dict[str, dict[str, Any]] = {}
        self.settle_later = False
        self.unsettled: list[tuple[str, int]] = []
        self.currency = "GBP"  # what the workspace pays in
        self.effects: Counter[str] = Counter()  # what changed at the market, per operation
        self.rejections: dict[str, tuple[str, str]] = {}  # submission → (message, category)
        self.calls: list[tuple[str, str]] = []  # (operation, path) of every request
        self.publishing_reads = 1  # reads of a PUBLISHING study before Prolific has it ACTIVE
        self.page_cap = 100  # the most results Prolific serves in one page, whatever was asked
        self.changes = itertools.count(1)  # orders studies by their last change
        self.changed_at: dict[str, int] = {}  # study → when it last changed
        self.publishing: dict[str, int] = {}  # study → reads left before Prolific has it ACTIVE

    def client(self, **options: Any) -> ProlificClient:
        """The real client, its requests answered by this fake (`options` as ProlificClient takes them)."""
        session = requests.Session()
        session.mount("https://", self)
        return ProlificClient("fake-token", session=session, **options)

    def submit(
        self, study_id: str, submission_id: str, participant_id: str, status: str = "AWAITING REVIEW"
    ) -> None:
        """A participant submitted to the study (or, with `status`, was already reviewed): one its
        participant-group filters let in, as `start` requires (a new submission's shortcut; a test may
        script one for a study it never made, which has no filters)."""
        new = submission_id not in self.submissions and study_id in self.studies
        if new and not self.eligible(study_id, participant_id):
            raise NotEligibleError(f"participant {participant_id} is excluded by the study's filters")
        self.submissions[submission_id] = {
            "id": submission_id,
            "participant_id": participant_id,
            "status": status,
            "study_id": study_id,
            "started_at": "2026-11-02T10:00:00Z",
            "bonus_payments": [],
        }
        self._moved(study_id)

    def return_submission(self, submission_id: str) -> None:
        """The participant returns their submission (from AWAITING REVIEW too, as Prolific allows)."""
        with self.lock:
            submission = self.submissions[submission_id]
            was = submission["status"]
            submission["status"] = "RETURNED"
            self._moved(submission["study_id"], freed_from=was)

    def paid(self, submission_id: str) -> int:
        """How many bonuses landed on the submission: above one, a bonus was paid twice."""
        with self.lock:
            return len(self.submissions[submission_id]["bonus_payments"])

    def settle(self) -> None:
        """Prolific pays bonuses "in the following minutes": land the ones paid so far."""
        for submission_id, cents in self.unsettled:
            self.submissions[submission_id]["bonus_payments"].append(cents)
        self.unsettled.clear()

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        url = str(request.url)
        status, reply = self.respond(
            str(request.method), url, json.loads(request.body) if request.body else None
        )
        response = requests.Response()
        response.status_code = status
        if status == 429 and self.last_retry_after:
            response.headers["Retry-After"] = self.last_retry_after
        response._content = json.dumps(reply).encode()
        response.headers["Content-Type"] = "application/json"
        response.url, response.request = url, request
        return response

    def close(self) -> None:
        pass

    def respond(self, method: str, url: str, body: Any) -> tuple[int, Any]:
        """Check the request, act on it, check the answer: the (status, body) to send back.

        Raises requests' ConnectionError when the market is down and ReadTimeout when the reply is lost."""
        with self.lock:
            if self.down:
                raise requests.ConnectionError("the fake Prolific is down")
            found = check_request(method, url, body)
            self.calls.append((found.operation, urlsplit(url).path))
            status, reply = self._answer(found.operation, urlsplit(url), body or {})
            check_response(found, status, reply)
            hold = self.holding.counts(found.operation, self._unpaid(url))
            status, reply = self._fault_after(found.operation, status, reply)
        if hold:
            self.holding.wait()
        return status, reply

    def _unpaid(self, url: str) -> bool:
        found = re.fullmatch(r"/api/v1/submissions/([^/]+)/", urlsplit(url).path)
        submission = self.submissions.get(found[1]) if found else None
        return submission is not None and not submission["bonus_payments"]

    def _paying(self, what: str, ref: str) -> None:
        if self.on_paying is not None:
            self.on_paying(what, ref)

    def _answer(self, operation: str, url: SplitResult, body: dict[str, Any]) -> tuple[int, Any]:
        refused = self._fault_before(operation)
        if refused is not None:
            return refused
        parts = url.path.strip("/").split("/")[2:]  # after api/v1
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        handler = getattr(self, "_" + operation.replace("-", "_"))
        try:
            answer: tuple[int, Any] = handler(parts, query, body)
        except KeyError as missing:
            return 404, error_reply(404, "Not found", f"No such resource: {missing}")
        return answer

    # -- operations, named as in Prolific's reference -------------------------------------------

    def _get_project(self, parts: list[str], query: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        return 200, {"id": parts[1], "title": "Stancework", "workspace": self.WORKSPACE}

    def _get_workspace_balance(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        return 200, {
            "currency_code": self.currency,
            "total_balance": 1_000_000,
            "available_balance": 1_000_000,
        }

    def _get_participant_groups(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        found = [g for g in self.groups.values() if g["workspace_id"] == query["workspace_id"]]
        return 200, self._page([_group(g) for g in found], query)

    def _get_participant_group_participants(
        self, parts: list[str], query: dict[str, str], body: Any
    ) -> tuple[int, Any]:
        return 200, {"results": [{"participant_id": pid} for pid in self.groups[parts[1]]["members"]]}

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
        too_short = too_short_a_time(body)
        if too_short:
            return 400, error_reply(400, "Invalid maximum allowed time", too_short)
        self._paying("create study", found[1])
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
        self._changed(study_id)
        return 201, self._shown(study_id)

    def _get_project_studies(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        page, size = int(query.get("page", 1)), min(int(query.get("page_size", 20)), self.page_cap)
        found = [s for s in self.studies.values() if s["project"] == parts[1]]
        ordering = query.get("ordering", "")
        if ordering:  # ids grow with creation, as date_created does
            found.sort(key=lambda s: (len(s["id"]), s["id"]), reverse=ordering.startswith("-"))
        else:  # no documented order: here, the study changed last comes first
            found.sort(key=lambda s: -int(self.changed_at.get(s["id"], 0)))
        return 200, {"results": [self._shown(s["id"]) for s in found[(page - 1) * size : page * size]]}

    def _calculate_study_cost(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        rewards = body["reward"] * body["total_available_places"]
        fees = round(rewards * Decimal("0.3334"))
        return 200, {"total_cost": rewards + fees + round(fees * Decimal("0.2"))}

    def _get_study(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        study = self.studies[parts[1]]
        if study["status"] == "PUBLISHING":
            self.publishing[study["id"]] = left = self.publishing.get(study["id"], self.publishing_reads) - 1
            if left <= 0:
                study["status"] = "ACTIVE"  # Prolific has processed the publish, by itself
                self._changed(study["id"])
        return 200, self._shown(study["id"])

    def _update_study(self, parts: list[str], query: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        study = self.studies[parts[1]]
        self._paying("add places", study["id"])
        if body["total_available_places"] > study["total_available_places"]:
            self._reopened(study["id"])
        study["total_available_places"] = body["total_available_places"]
        self._changed(study["id"])
        self._moved(study["id"])
        return 200, self._shown(study["id"])

    def _transition_study(
        self, parts: list[str], query: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, Any]:
        study, action = self.studies[parts[1]], body["action"]
        rule = transitions()[action]
        if study["status"] not in rule["from"]:
            said = f"{action} is not allowed from {study['status']}"
            return 400, error_reply(400, "Invalid transition", said)
        if action == "PUBLISH":
            self._paying("publish study", study["id"])
        self.effects[f"{action.lower()}-study"] += 1
        study["status"] = rule["to"]
        if action == "STOP":
            study["stopped"] = True
            if self._awaiting(study["id"]):
                study["status"] = rule["while_awaiting_review"]
        self._changed(study["id"])
        self._moved(study["id"])  # started full: at once awaiting review
        return 200, self._shown(study["id"])

    def _get_study_submissions(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        found = [s for s in self.submissions.values() if s["study_id"] == parts[1]]
        return 200, self._page([_short(s) for s in found], query)

    def _get_submission(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        return 200, _detail(self.submissions[parts[1]])

    def _transition_submission(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        submission, action = self.submissions[parts[1]], body["action"]
        self._paying(f"{action.lower()} submission", submission["id"])
        target = "APPROVED" if action == "APPROVE" else "REJECTED"
        if submission["status"] == target:
            return 200, _detail(submission)  # Prolific: "the second request will be ignored"
        if submission["status"] != "AWAITING REVIEW":
            return 400, error_reply(
                400, "Invalid transition", f"{action} is not allowed from {submission['status']}"
            )
        self.effects[f"{action.lower()}-submission"] += 1
        submission["status"] = target
        if action == "REJECT":
            self.rejections[submission["id"]] = (body["message"], body["rejection_category"])
        self._moved(submission["study_id"], freed_from="AWAITING REVIEW" if action == "REJECT" else "")
        return 200, _detail(submission)

    def _create_bonus_payments(self, parts: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        lines = [line.split(",") for line in body["csv_bonuses"].splitlines()]
        for submission_id, _ in lines:
            self._paying("set up bonus", submission_id)
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
        self._paying("pay bonus", parts[1])
        self.effects["pay-bonus"] += 1
        self.unsettled += self.bulks[parts[1]]["lines"]
        if not self.settle_later:
            self.settle()
        return 202, f"Bulk bonus payment with ID {parts[1]} is being processed asynchronously."

    def _page(self, results: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
        offset, limit = int(query.get("offset", 0)), min(int(query.get("limit", 20)), self.page_cap)
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


_market: FakeProlific | None = None
_client: ProlificClient | None = None


def fake_market() -> FakeProlific:
    """The one fake Prolific of this process, the one `fake_client` talks to."""
    global _market
    if _market is None:
        _market = FakeProlific()
    return _market


def fake_client() -> ProlificClient:
    """The real client talking to this process's fake Prolific (what MARKET_CLIENTS names)."""
    global _client
    if _client is None:
        _client = fake_market().client()
    return _client
