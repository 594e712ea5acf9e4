"""A fake MTurk for tests, the bench and the demo, chosen in settings as Django chooses locmem:

    MARKET_CLIENTS=mturk=annotation.markets.mturk.fake.fake_client

`FakeMTurk` is a requester account in memory behind a real boto3 client, answering from a
`before-call` hook instead of the network (as botocore's Stubber does, but in any order and with
state). botocore checks every request against AWS's MTurk service model, which it ships, before the
fake sees it; the fake checks every answer it gives against the same model's output shape, so it
cannot drift from the API. It keeps MTurk's rules: a UniqueRequestToken seen before is refused in
MTurk's words (the client then reads the market to confirm), a review only of a Submitted
assignment, a HIT made with fewer than 10 assignments never extended to 10 or more, an unknown id
refused with a RequestError, lists paged by MaxResults/NextToken.

And the service model's limits, each from its text (botocore's data/mturk/2017-01-17/service-2.json),
tested in tests/annotation/test_mturk_fake.py: a UniqueRequestToken "expires after 24 hours", after
which the same call acts again (CreateHITWithHITType: "could create duplicate HITs"); MaxResults is
at most 100 (ResultSize), checked here since botocore checks only minimums. `advance` moves the fake's
clock, so a test can let a token expire.

Faults on demand: a reply lost after the work was done (`lose_reply`), a throttled call
(`throttle`), and a market that is down (`down`). `on_paying` hears of every call that creates work
or pays, before it acts: the tests' guard checks each against the ledger, the bench counts them.
The client itself is tested against botocore's Stubber and recorded responses, not against this.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import boto3
from botocore.awsrequest import AWSResponse
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError
from botocore.validate import ParamValidator

from annotation.markets.mturk.client import REGION, MTurkClient
from annotation.markets.mturk.fake_workers import Refused, WorkersAtMTurk, market_id, page

ENDPOINT = "https://mturk-requester.fake.invalid"
# "The unique token expires after 24 hours" (UniqueRequestToken, CreateHITWithHITType, service model).
TOKEN_LIFETIME = dt.timedelta(hours=24)
MAX_RESULTS = 100  # the service model's ResultSize maximum
# Told of each call that creates work or pays, before it acts: the operation (as AWS names it, one
# of FakeMTurk.PAYING) and its parameters.
PayingHook = Callable[[str, dict[str, Any]], None]


class FakeMTurk(WorkersAtMTurk):
    """An MTurk requester account in memory, behind a real boto3 client held to AWS's API model."""

    PAYING = frozenset(
        {
            "CreateHITWithHITType",
            "CreateAdditionalAssignmentsForHIT",
            "ApproveAssignment",
            "RejectAssignment",
            "SendBonus",
        }
    )
    BALANCE = "10000.00"  # what the sandbox always reports

    def __init__(self, on_paying: PayingHook | None = None) -> None:
        self.on_paying = on_paying
        self.lock = threading.RLock()  # the bench pays from several threads at once
        self.ids = itertools.count(1)
        self.hits: dict[str, dict[str, Any]] = {}
        self.assignments: dict[str, dict[str, Any]] = {}
        self.bonuses: list[dict[str, Any]] = []
        self._start_workers()  # qualification types, HIT types, and who may take which HIT
        self.notified: list[tuple[str, str]] = []  # (worker, subject)
        # (operation, UniqueRequestToken) → what it made, and when
        self.tokens: dict[tuple[str, str], tuple[str, dt.datetime]] = {}
        self.ahead = dt.timedelta(0)  # how far the fake's clock is ahead of the real one
        self.lost: set[str] = set()  # operations carried out once, their reply lost on the way back
        self.throttled: set[str] = set()  # operations answered ThrottlingException once
        self.down = False  # every request fails to connect (the market is unreachable)
        self.effects: Counter[str] = Counter()  # what changed at the market, per kind of change
        self.calls: Counter[str] = Counter()  # requests received, per operation
        self.boto = boto3.client(
            "mturk",
            region_name=REGION,
            endpoint_url=ENDPOINT,
            aws_access_key_id="fake",
            aws_secret_access_key="fake",
        )
        self.boto.meta.events.register("before-parameter-build.mturk", self._keep_params)
        self.boto.meta.events.register("before-call.mturk", self._answer)

    def client(self, **options: Any) -> MTurkClient:
        """The real client, its calls answered by this fake (`options` as MTurkClient takes them)."""
        return MTurkClient(client=self.boto, **options)

    def submit(self, hit_id: str, assignment_id: str, worker_id: str, status: str = "Submitted") -> None:
        """A worker submitted at MTurk (after our page posted to externalSubmit), or, with `status`,
        the work was already reviewed."""
        with self.lock:
            self.assignments[assignment_id] = {
                "AssignmentId": assignment_id,
                "WorkerId": worker_id,
                "HITId": hit_id,
                "AssignmentStatus": status,
                "SubmitTime": self.now(),
            }

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + self.ahead

    def advance(self, hours: float) -> None:
        """Move the market's clock on (a token's 24 hours pass without a test waiting for them)."""
        with self.lock:
            self.ahead += dt.timedelta(hours=hours)

    def lose_reply(self, operation: str) -> None:
        """Carry out the next `operation` (e.g. "SendBonus"), then lose its reply (a read timeout)."""
        self.lost.add(operation)

    def throttle(self, operation: str) -> None:
        """Answer the next `operation` with MTurk's ThrottlingException, doing nothing."""
        self.throttled.add(operation)

    # -- the hooks on the boto3 client --------------------------------------------------------

    def _keep_params(self, params: dict[str, Any], context: dict[str, Any], **kwargs: Any) -> None:
        context["fake_params"] = dict(params)

    def _answer(
        self, model: Any, context: dict[str, Any], **kwargs: Any
    ) -> tuple[AWSResponse, dict[str, Any]]:
        """Act on a request botocore has already checked; the answer is checked against the model."""
        op, params = model.name, context["fake_params"]
        with self.lock:
            if self.down:
                raise EndpointConnectionError(endpoint_url=ENDPOINT)
            self.calls[op] += 1
            if op in self.throttled:
                self.throttled.discard(op)
                return _error("ThrottlingException", "Rate exceeded")
            if op in self.PAYING and self.on_paying is not None:
                self.on_paying(op, params)
            try:
                body = self._act(op, params)
            except Refused as refused:
                return _error("RequestError", str(refused))
            check_answer(model, body)
            if op in self.lost:
                self.lost.discard(op)
                raise ReadTimeoutError(endpoint_url=f"{ENDPOINT} ({op} done, its reply lost)")
        return AWSResponse(ENDPOINT, 200, {}, None), body

    def _act(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        token = params.get("UniqueRequestToken")
        seen = self.tokens.get((op, token)) if token else None
        if token and seen and self.now() - seen[1] < TOKEN_LIFETIME:
            raise Refused(_already(op, token, seen[0]))
        if int(params.get("MaxResults", 1)) > MAX_RESULTS:
            raise Refused(f"MaxResults must be at most {MAX_RESULTS}.")
        handler: Callable[[dict[str, Any]], dict[str, Any]] | None = getattr(self, f"_{op}", None)
        if handler is None:
            raise NotImplementedError(f"the fake MTurk does not answer {op}")
        try:
            body = handler(params)
        except KeyError as missing:
            raise Refused(f"{missing} does not exist.") from None
        if token:
            self.tokens[op, token] = (body.get("HIT", {}).get("HITId", ""), self.now())
        return body

    # -- operations, named as in the API ------------------------------------------------------

    def _GetAccountBalance(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"AvailableBalance": self.BALANCE}

    def _CreateHITWithHITType(self, p: dict[str, Any]) -> dict[str, Any]:
        if p["HITTypeId"] not in self.hit_types:
            raise Refused(f"HITType {p['HITTypeId']} does not exist.")
        hit_id = market_id("HIT", next(self.ids))
        now = self.now()
        self.hits[hit_id] = {
            "HITId": hit_id,
            "HITTypeId": p["HITTypeId"],
            "CreationTime": now,
            "Expiration": now + dt.timedelta(seconds=p["LifetimeInSeconds"]),
            "MaxAssignments": p["MaxAssignments"],
            "HITStatus": "Assignable",
            "RequesterAnnotation": p.get("RequesterAnnotation", ""),
        }
        self.effects["HIT created"] += 1
        return {"HIT": self.hits[hit_id]}

    def _GetHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"HIT": self.hits[p["HITId"]]}

    def _ListHITs(self, p: dict[str, Any]) -> dict[str, Any]:
        return page("HITs", list(self.hits.values()), p)

    def _CreateAdditionalAssignmentsForHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        hit = self.hits[p["HITId"]]
        before, after = hit["MaxAssignments"], hit["MaxAssignments"] + p["NumberOfAdditionalAssignments"]
        if before < 10 <= after:
            raise Refused(
                f"HIT {hit['HITId']} was created with fewer than 10 assignments: it cannot have 10 or more."
            )
        hit["MaxAssignments"] = after
        self.effects["assignments added"] += p["NumberOfAdditionalAssignments"]
        return {}

    def _UpdateExpirationForHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        hit = self.hits[p["HITId"]]
        hit["Expiration"] = p["ExpireAt"]
        hit["HITStatus"] = "Reviewable" if p["ExpireAt"] <= self.now() else "Assignable"
        return {}

    def _ListAssignmentsForHIT(self, p: dict[str, Any]) -> dict[str, Any]:
        statuses = p.get("AssignmentStatuses") or ("Submitted", "Approved", "Rejected")
        found = [
            a
            for a in self.assignments.values()
            if a["HITId"] == p["HITId"] and a["AssignmentStatus"] in statuses
        ]
        return page("Assignments", found, p)

    def _GetAssignment(self, p: dict[str, Any]) -> dict[str, Any]:
        assignment = self.assignments[p["AssignmentId"]]
        return {
            "Assignment": assignment,
            "HIT": self.hits.get(assignment["HITId"], {"HITId": assignment["HITId"]}),
        }

    def _review(self, p: dict[str, Any], status: str) -> dict[str, Any]:
        found = self.assignments[p["AssignmentId"]]
        if found["AssignmentStatus"] != "Submitted":
            raise Refused("This operation can be called with a status of: Submitted")
        found["AssignmentStatus"] = status
        self.effects[status] += 1
        return {}

    def _ApproveAssignment(self, p: dict[str, Any]) -> dict[str, Any]:
        return self._review(p, "Approved")

    def _RejectAssignment(self, p: dict[str, Any]) -> dict[str, Any]:
        return self._review(p, "Rejected")

    def _SendBonus(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.assignments[p["AssignmentId"]]["WorkerId"] != p["WorkerId"]:
            raise Refused(f"Assignment {p['AssignmentId']} was not done by worker {p['WorkerId']}.")
        keep = ("AssignmentId", "WorkerId", "BonusAmount", "Reason")
        self.bonuses.append({k: p[k] for k in keep} | {"GrantTime": self.now()})
        self.effects["bonus paid"] += 1
        return {}

    def _ListBonusPayments(self, p: dict[str, Any]) -> dict[str, Any]:
        def asked(bonus: dict[str, Any]) -> bool:
            if "AssignmentId" in p:
                return bool(bonus["AssignmentId"] == p["AssignmentId"])
            return bool(self.assignments[bonus["AssignmentId"]]["HITId"] == p.get("HITId"))

        return page("BonusPayments", [b for b in self.bonuses if asked(b)], p)

    def _NotifyWorkers(self, p: dict[str, Any]) -> dict[str, Any]:
        self.notified += [(worker, p["Subject"]) for worker in p["WorkerIds"]]
        return {"NotifyWorkersFailureStatuses": []}


def check_answer(model: Any, body: dict[str, Any]) -> None:
    """Fail when an answer of the fake is not one MTurk's service model allows for the operation."""
    report = ParamValidator().validate(body, model.output_shape)
    if report.has_errors():
        raise AssertionError(
            f"the fake MTurk answered {model.name} off AWS's model: {report.generate_report()}"
        )


def _already(op: str, token: str, made: str) -> str:
    """MTurk's words for a UniqueRequestToken it has seen (as recorded in the client's tests)."""
    if op == "CreateHITWithHITType":
        return f"AWS.MechanicalTurk.HitAlreadyExists: The HIT with ID {made} already exists."
    return f"The request with UniqueRequestToken {token} has already been processed."


def _error(code: str, message: str) -> tuple[AWSResponse, dict[str, Any]]:
    return AWSResponse(ENDPOINT, 400, {}, None), {"Error": {"Code": code, "Message": message}}


_making = threading.RLock()
_market: FakeMTurk | None = None
_client: MTurkClient | None = None


def fake_market() -> FakeMTurk:
    """The one fake MTurk of this process, the one `fake_client` talks to."""
    global _market
    with _making:
        if _market is None:
            _market = FakeMTurk()
        return _market


def fake_client() -> MTurkClient:
    """The real client talking to this process's fake MTurk (what MARKET_CLIENTS names)."""
    global _client
    with _making:
        if _client is None:
            _client = fake_market().client()
        return _client
