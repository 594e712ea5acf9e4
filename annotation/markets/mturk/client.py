"""Amazon Mechanical Turk over boto3: with its fake beside it (fake.py), the only module that imports boto3.

Every call that accepts a UniqueRequestToken gets one (the ledger row's token, made from what the
call is about); a reused token that MTurk reports as "already processed" counts as success only
after reading the market's state confirms it. Only named transient errors are retried.

AWS announced that MTurk closes on 2026-09-30. The adapter stays complete for accounts and
archives that still use it; `mturk_closure_warning` says so wherever MTurk is configured.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from functools import partial
from typing import Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    HTTPClientError,
    IncompleteReadError,
    NoCredentialsError,
)
from botocore.exceptions import (
    ConnectionError as BotoConnectionError,
)
from django.conf import settings

from annotation.market_interface.clients import market_client
from annotation.market_interface.errors import (
    MarketAuthError,
    MarketConfigError,
    MarketError,
    MarketRejectedError,
    MarketUnavailableError,
)
from annotation.markets.mturk.answers import (
    MarketAssignment,
    MarketBonus,
    MarketHit,
    Outcome,
    assignment_from,
    hit_from,
)
from annotation.markets.mturk.spec import HitSpec, HitTypeSpec, check_assignments, external_question, money

log = logging.getLogger(__name__)

REGION = "us-east-1"
SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
PRODUCTION_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"
CLOSURE_DATE = dt.date(2026, 9, 30)
NOTIFY_BATCH = 100
PAGE_SIZE = 100

# Error codes MTurk uses for "try again": a server fault or throttling.
TRANSIENT_CODES = frozenset({"ServiceFault", "ServiceUnavailable", "Throttling", "ThrottlingException"})
# Every transport failure once the request may have left is a lost reply: botocore's connection
# errors (refused, timed out), its HTTPClientError family (read timeouts, closed connections, a body
# broken mid-stream) and a short body.
TRANSIENT_NETWORK = (BotoConnectionError, HTTPClientError, IncompleteReadError)
AUTH_CODES = frozenset({"UnrecognizedClientException", "InvalidClientTokenId", "AccessDeniedException"})
# MTurk answers a reused UniqueRequestToken with a RequestError; the wording differs per API call
# (HitAlreadyExists for HITs, "already been processed"/"already exists" for bonuses and extensions).
_ALREADY = re.compile(r"HitAlreadyExists|already (?:been )?(?:processed|exists|granted|sent)", re.IGNORECASE)
_HIT_ID = re.compile(r"\b([A-Z0-9]{30})\b")

T = TypeVar("T")


def mturk_closure_warning(today: dt.date | None = None) -> str:
    """The sentence shown wherever MTurk is configured."""
    today = today or dt.date.today()
    verb = "closed" if today > CLOSURE_DATE else "closes"
    return (
        f"MTurk is configured, and AWS announced that MTurk {verb} on {CLOSURE_DATE.isoformat()}: "
        "keep a second market (Prolific, in-house) ready for new jobs."
    )


class VerificationError(MarketError):
    """The market said a request was already processed, but reading its state did not confirm it."""


class MTurkClient:
    """A typed adapter over a boto3 MTurk client. Pass `client` to use a stubbed one in tests."""

    def __init__(
        self,
        *,
        sandbox: bool = True,
        client: Any | None = None,
        attempts: int = 3,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.sandbox = sandbox
        self.attempts = attempts
        self.backoff = backoff
        self.sleep = sleep
        self.client = client if client is not None else build_boto3_client(sandbox)
        log.warning(mturk_closure_warning())

    # -- creating work ------------------------------------------------------------------------

    def create_hit_type(self, spec: HitTypeSpec) -> str:
        """Register (or find: MTurk dedupes identical HIT types) the HIT type; returns its id."""
        response = self._call("create_hit_type", **spec.as_request())
        return str(response["HITTypeId"])

    def create_hit(self, hit_type_id: str, spec: HitSpec, token: str) -> Outcome:
        """Create one HIT. The token is also stored as RequesterAnnotation so the HIT can be found."""
        try:
            response = self._call(
                "create_hit_with_hit_type",
                HITTypeId=hit_type_id,
                MaxAssignments=spec.max_assignments,
                LifetimeInSeconds=int(spec.lifetime.total_seconds()),
                Question=external_question(spec.task_url, spec.frame_height),
                RequesterAnnotation=token,
                UniqueRequestToken=token,
            )
        except MarketRejectedError as exc:
            if not _ALREADY.search(f"{exc.code} {exc}"):
                raise
            return Outcome(self._find_replayed_hit(str(exc), token), replayed=True)
        return Outcome(str(response["HIT"]["HITId"]))

    def _find_replayed_hit(self, message: str, token: str) -> str:
        found = _HIT_ID.search(message)
        if found:
            hit = self.get_hit(found.group(1))
            if hit.annotation == token:
                return hit.hit_id
        for hit in self.list_hits():
            if hit.annotation == token:
                return hit.hit_id
        raise VerificationError(f"MTurk reports HIT token {token} as used, but no HIT carries it")

    def create_additional_assignments(self, hit_id: str, count: int, token: str) -> Outcome:
        """Extend a HIT by `count` assignments, keeping it at 9 or fewer."""
        before = self.get_hit(hit_id)
        check_assignments(count, already=before.max_assignments)
        try:
            self._call(
                "create_additional_assignments_for_hit",
                HITId=hit_id,
                NumberOfAdditionalAssignments=count,
                UniqueRequestToken=token,
            )
        except MarketRejectedError as exc:
            if not _ALREADY.search(f"{exc.code} {exc}"):
                raise
            return Outcome(hit_id, replayed=True)
        return Outcome(hit_id)

    def update_expiration(self, hit_id: str, expire_at: dt.datetime) -> None:
        """Move a HIT's expiry; a time in the past expires it now."""
        self._call("update_expiration_for_hit", HITId=hit_id, ExpireAt=expire_at)

    # -- reading ------------------------------------------------------------------------------

    def get_hit(self, hit_id: str) -> MarketHit:
        return hit_from(self._call("get_hit", HITId=hit_id)["HIT"])

    def list_hits(self) -> Iterator[MarketHit]:
        for page in self._pages("list_hits"):
            yield from (hit_from(raw) for raw in page.get("HITs", []))

    def list_assignments(self, hit_id: str, statuses: Sequence[str] = ()) -> Iterator[MarketAssignment]:
        """Every assignment of a HIT, through the paginator (100 a page)."""
        kwargs: dict[str, Any] = {"HITId": hit_id}
        if statuses:
            kwargs["AssignmentStatuses"] = list(statuses)
        for page in self._pages("list_assignments_for_hit", **kwargs):
            yield from (assignment_from(raw) for raw in page.get("Assignments", []))

    def get_assignment(self, assignment_id: str) -> MarketAssignment:
        return assignment_from(self._call("get_assignment", AssignmentId=assignment_id)["Assignment"])

    def list_bonuses(self, *, hit_id: str = "", assignment_id: str = "") -> Iterator[MarketBonus]:
        kwargs = {"HITId": hit_id} if hit_id else {"AssignmentId": assignment_id}
        for page in self._pages("list_bonus_payments", **kwargs):
            for raw in page.get("BonusPayments", []):
                yield MarketBonus(
                    assignment_id=raw["AssignmentId"],
                    worker_id=raw["WorkerId"],
                    amount=Decimal(raw["BonusAmount"]),
                    reason=raw.get("Reason", ""),
                    granted_at=raw.get("GrantTime"),
                )

    def get_account_balance(self) -> Decimal:
        """Available balance in US dollars (the sandbox always reports $10,000.00)."""
        return Decimal(self._call("get_account_balance")["AvailableBalance"])

    # -- paying -------------------------------------------------------------------------------

    def approve(self, assignment_id: str, feedback: str = "") -> Outcome:
        """Approve a submitted assignment; approving one already approved is verified, not repeated."""
        kwargs: dict[str, Any] = {"AssignmentId": assignment_id}
        if feedback:
            kwargs["RequesterFeedback"] = feedback[:1024]
        return self._review("approve_assignment", "Approved", kwargs)

    def reject(self, assignment_id: str, feedback: str) -> Outcome:
        """Reject with the reason the worker will read (MTurk requires one)."""
        if not feedback.strip():
            raise MarketRejectedError("MTurk requires feedback explaining a rejection")
        kwargs = {"AssignmentId": assignment_id, "RequesterFeedback": feedback[:1024]}
        return self._review("reject_assignment", "Rejected", kwargs)

    def _review(self, api_call: str, final: str, kwargs: dict[str, Any]) -> Outcome:
        """Sent once (no token makes a review idempotent): a lost reply, or a refusal because the work
        is no longer Submitted, is decided by reading the assignment, never by sending it again."""
        assignment_id = kwargs["AssignmentId"]
        method = getattr(self.client, api_call)
        try:
            self._once(lambda: method(**kwargs))
        except (MarketRejectedError, MarketUnavailableError):
            if self.get_assignment(assignment_id).status != final:
                raise
            return Outcome(assignment_id, replayed=True)
        return Outcome(assignment_id)

    def _once(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except (ClientError, BotoCoreError) as exc:
            raise translate(exc) from exc

    def send_bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> Outcome:
        """Pay a bonus once: a retry reuses `token`, and a replay is confirmed from ListBonusPayments."""
        try:
            self._call(
                "send_bonus",
                WorkerId=worker_id,
                AssignmentId=assignment_id,
                BonusAmount=money(amount),
                Reason=reason,
                UniqueRequestToken=token,
            )
        except MarketRejectedError as exc:
            if not _ALREADY.search(f"{exc.code} {exc}"):
                raise
            paid = [b for b in self.list_bonuses(assignment_id=assignment_id) if b.amount == Decimal(amount)]
            if not paid:
                raise VerificationError(
                    f"MTurk reports bonus token {token} as used, but {assignment_id} shows no such bonus"
                ) from exc
            return Outcome(assignment_id, replayed=True)
        return Outcome(assignment_id)

    # -- workers ------------------------------------------------------------------------------

    def notify_workers(self, worker_ids: Sequence[str], subject: str, message: str) -> list[str]:
        """Message workers, 100 per call; returns the ids MTurk could not notify."""
        failed: list[str] = []
        unique = list(dict.fromkeys(worker_ids))
        for start in range(0, len(unique), NOTIFY_BATCH):
            batch = unique[start : start + NOTIFY_BATCH]
            response = self._call("notify_workers", Subject=subject, MessageText=message, WorkerIds=batch)
            failed += [s["WorkerId"] for s in response.get("NotifyWorkersFailureStatuses", [])]
        return failed

    def create_qualification_type(self, name: str, description: str) -> str:
        """One of our own qualifications (quiz passed, soft block); granted by us, never by a test."""
        response = self._call(
            "create_qualification_type",
            Name=name,
            Description=description,
            QualificationTypeStatus="Active",
        )
        return str(response["QualificationType"]["QualificationTypeId"])

    def find_qualification_type(self, name: str) -> str | None:
        """The id of our own qualification type of exactly this name, or None (a search, paged)."""
        search = {"Query": name, "MustBeRequestable": False, "MustBeOwnedByCaller": True}
        for page in self._pages("list_qualification_types", **search):
            for found in page.get("QualificationTypes", []):
                if found.get("Name") == name:
                    return str(found["QualificationTypeId"])
        return None

    def grant_qualification(self, type_id: str, worker_id: str, value: int = 1) -> None:
        self._call(
            "associate_qualification_with_worker",
            QualificationTypeId=type_id,
            WorkerId=worker_id,
            IntegerValue=value,
            SendNotification=False,
        )

    def revoke_qualification(self, type_id: str, worker_id: str, reason: str) -> None:
        """Take one of our qualifications back (lifting a soft block); repeating it changes nothing."""
        self._call(
            "disassociate_qualification_from_worker",
            QualificationTypeId=type_id,
            WorkerId=worker_id,
            Reason=reason,
        )

    # -- plumbing -----------------------------------------------------------------------------

    def _pages(self, api_call: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Pages from the paginator, one request at a time so a transient error retries that page only."""
        paginator = self.client.get_paginator(api_call)
        config: dict[str, Any] = {"PageSize": PAGE_SIZE}
        while True:
            pages = paginator.paginate(PaginationConfig=dict(config), **kwargs)
            # Each next(iter(pages)) sends the request afresh, so a retry repeats only this page.
            page: dict[str, Any] = self._retrying(partial(_first_page, pages))
            yield page
            if not page.get("NextToken"):
                return
            config["StartingToken"] = page["NextToken"]

    def _call(self, api_call: str, **kwargs: Any) -> dict[str, Any]:
        method = getattr(self.client, api_call)
        return self._retrying(lambda: method(**kwargs))

    def _retrying(self, call: Callable[[], T]) -> T:
        """Run `call`, retrying named transient errors only; map everything to MarketError."""
        for attempt in range(1, self.attempts + 1):
            try:
                return call()
            except (ClientError, BotoCoreError) as exc:
                error = translate(exc)
                if not isinstance(error, MarketUnavailableError) or attempt == self.attempts:
                    raise error from exc
                log.info("MTurk transient error (attempt %d/%d): %s", attempt, self.attempts, error)
                self.sleep(self.backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable: the loop returns or raises")


def translate(exc: ClientError | BotoCoreError) -> MarketError:
    """Name a botocore failure so callers can tell transient from final."""
    if isinstance(exc, TRANSIENT_NETWORK):
        return MarketUnavailableError(f"MTurk unreachable: {exc}", code=type(exc).__name__)
    if isinstance(exc, NoCredentialsError):
        return MarketAuthError("no AWS credentials in the environment", code="NoCredentials")
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", ""))
        message = str(error.get("Message", exc))
        excerpt = f"{code}: {message}"
        if code in TRANSIENT_CODES:
            return MarketUnavailableError(message, code=code, excerpt=excerpt)
        if code in AUTH_CODES:
            return MarketAuthError(message, code=code, excerpt=excerpt)
        return MarketRejectedError(message, code=code, excerpt=excerpt)
    return MarketError(f"MTurk client error: {exc}", code=type(exc).__name__)


def build_boto3_client(sandbox: bool) -> Any:
    """A boto3 MTurk client; credentials come from the standard AWS environment and files."""
    config = Config(
        region_name=REGION,
        connect_timeout=5,
        read_timeout=20,
        # Retries are ours (named errors only, same idempotency token), not botocore's.
        retries={"total_max_attempts": 1, "mode": "standard"},
    )
    endpoint = SANDBOX_ENDPOINT if sandbox else PRODUCTION_ENDPOINT
    return boto3.client("mturk", region_name=REGION, endpoint_url=endpoint, config=config)


def _first_page(pages: Any) -> dict[str, Any]:
    return dict(next(iter(pages)))


def _check_enabled() -> None:
    if not settings.MTURK_ENABLED:
        raise MarketConfigError("MTurk is not enabled (MTURK_ENABLED)")


def mturk_client() -> MTurkClient:
    """The platform's MTurk client (MTURK_ENABLED, MTURK_SANDBOX), or the one MARKET_CLIENTS names."""
    return market_client("mturk", lambda: MTurkClient(sandbox=settings.MTURK_SANDBOX), _check_enabled)
