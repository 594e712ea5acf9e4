"""Prolific's REST API (https://docs.prolific.com/api-reference), token auth, through `requests`.

A study per job batch, created in the configured project; participants arrive at our external study
URL with PROLIFIC_PID, STUDY_ID and SESSION_ID and leave through the completion redirect. Approve and
reject are documented as idempotent, yet no action is ever sent twice on a lost reply: every call that
changes something at Prolific (study create and transitions, approve, reject, bonus set-up and pay,
participant groups) is sent once, and when its reply is lost (a timeout, a 5xx) the client reads the
thing it acted on and decides from what it finds (`_decided_by_reading`), never by resending. Bonuses
are two calls: set up a bulk bonus payment (an unpaid one pays nobody), then pay it. A set-up cannot
be read back (Prolific documents no read of one), so a lost set-up reply is left to the ledger, whose
row stays unclear. The pay call is NOT
idempotent (Prolific pays twice if asked twice), so `pay_bonus_payment` makes exactly one attempt and
reports an unclear outcome as `PaymentOutcomeUnclearError`; the market's `resolve` then reads the
submission's bonuses, and the row stays unclear until they show or a person decides.
Lists are read page by page with limit/offset until `meta.count`, as Prolific's own client does, and
a project's studies page by page in creation order until an empty page: Prolific may serve fewer
than asked, so a short page is never taken for the last. A 429 is Prolific turning the request away
before acting ("Managing high loads": paying calls check the workspace wallet before each
transaction, and contention answers 429; retry with back-off): every call, the pay call included, is
sent again after its Retry-After. Any other failure once the request may have left (a timeout, a
reply broken mid-body) is a lost reply.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, TypeVar

import requests
from django.conf import settings

from annotation.market_interface.clients import market_client
from annotation.market_interface.errors import (
    MarketConfigError,
    MarketError,
    MarketRejectedError,
    MarketUnavailableError,
    PaymentOutcomeUnclearError,
)
from annotation.markets.prolific import resources
from annotation.markets.prolific.http_errors import (
    TRANSIENT_STATUS,
    ProlificThrottledError,
    raise_for_status,
    throttled,
)
from annotation.markets.prolific.resources import (
    Balance,
    BulkBonus,
    ParticipantGroup,
    Project,
    Study,
    StudyListed,
    Submission,
)
from annotation.markets.prolific.studies import TRANSITIONS, StudySpec, needs_transition

log = logging.getLogger(__name__)
R = TypeVar("R")

API_URL = "https://api.prolific.com"
CENT = Decimal("0.01")
PAGE_SIZE = 200  # the official client's default page
MAX_PAGES = 1000  # a list that never ends is a fault, not a study
MAX_RETRY_AFTER = 60.0  # seconds: longer throttling is left to the caller's own retry
# Errors raised before a request leaves (a malformed URL or header): nothing reached Prolific.
BEFORE_SENDING = (
    requests.exceptions.InvalidURL,
    requests.exceptions.MissingSchema,
    requests.exceptions.InvalidSchema,
    requests.exceptions.InvalidHeader,
    requests.exceptions.URLRequired,
)


class ProlificClient:
    """A typed client. Pass `session` to route requests elsewhere (tests mount a recorded transport)."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str = API_URL,
        session: requests.Session | None = None,
        timeout: float = 20.0,
        attempts: int = 3,
        backoff: float = 0.5,
        page_size: int = PAGE_SIZE,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not token:
            raise MarketConfigError("PROLIFIC_API_TOKEN is not set")
        self.base_url = base_url.rstrip("/")
        self.session = session or requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        self.page_size = page_size
        self.sleep = sleep

    # -- studies ------------------------------------------------------------------------------

    def create_study(self, spec: StudySpec) -> Study:
        """Create a draft study. Not retried: a lost reply could leave a second, unpaid draft."""
        body = spec.as_request()
        return resources.study(self._send("POST", "/api/v1/studies/", json=body, retry=False))

    def get_study(self, study_id: str) -> Study:
        return resources.study(self._send("GET", f"/api/v1/studies/{study_id}/"))

    def list_project_studies(self, project_id: str) -> Iterator[StudyListed]:
        """Every study of a project, oldest first (so a study made meanwhile lands on a later page),
        page by page until an empty one: Prolific may serve fewer than `page_size`."""
        path = f"/api/v1/projects/{project_id}/studies/"
        for page in range(1, MAX_PAGES + 1):
            asked = {"page": page, "page_size": self.page_size, "ordering": "date_created"}
            results = list(self._send("GET", path, params=asked).get("results") or [])
            yield from (resources.study_listed(raw) for raw in results)
            if not results:
                return
        raise MarketError(f"{path}: still more after {MAX_PAGES} pages; stopped")

    def find_study(self, project_id: str, internal_name: str) -> StudyListed | None:
        """Our study of this internal name in the project, if Prolific has one (how a lost create is read)."""
        found = [s for s in self.list_project_studies(project_id) if s.internal_name == internal_name]
        return found[0] if found else None

    def transition_study(self, study_id: str, action: str) -> Study:
        """Send PUBLISH, PAUSE, START (resume) or STOP once; `move_study` reads the status around it."""
        if action not in TRANSITIONS:
            raise MarketRejectedError(f"unknown study action {action!r}; use one of {sorted(TRANSITIONS)}")
        body = {"action": action}
        path = f"/api/v1/studies/{study_id}/transition/"
        return resources.study(self._send("POST", path, json=body, retry=False))

    def move_study(self, study_id: str, action: str) -> Study:
        """Read the study, then send `action` only if its status allows it; a study already there is left be.

        Sent once: when the reply is lost, the study is read again and its status decides (a PUBLISH
        whose reply was lost finds the study PUBLISHING or ACTIVE, and is done). Raises
        StudyTransitionError, sending nothing, when Prolific would refuse the action.
        """
        study = self.get_study(study_id)
        if not needs_transition(action, study.status):
            return study
        return _decided_by_reading(
            lambda: self.transition_study(study_id, action),
            lambda: self.get_study(study_id),
            lambda read: not needs_transition(action, read.status),
        )

    def set_places(self, study_id: str, places: int) -> Study:
        """Set a study's total places. A total, not a delta, so sending it twice changes nothing."""
        if places < 1:
            raise MarketRejectedError(f"a study needs at least one place, got {places}")
        body = {"total_available_places": places}
        return resources.study(self._send("PATCH", f"/api/v1/studies/{study_id}/", json=body))

    # -- submissions --------------------------------------------------------------------------

    def list_submissions(self, study_id: str) -> Iterator[Submission]:
        """Every submission of a study, every page."""
        for raw in self._pages(f"/api/v1/studies/{study_id}/submissions/", {}):
            yield resources.submission(raw)

    def get_submission(self, submission_id: str) -> Submission:
        return resources.submission(self._send("GET", f"/api/v1/submissions/{submission_id}/"))

    def approve_submission(self, submission_id: str) -> Submission:
        return self._transition_submission(submission_id, {"action": "APPROVE"}, "APPROVED")

    def reject_submission(self, submission_id: str, message: str, category: str) -> Submission:
        """Reject; the message and category were checked (rejections.check_rejection) before the ledger."""
        body = {"action": "REJECT", "message": message, "rejection_category": category}
        return self._transition_submission(submission_id, body, "REJECTED")

    def _transition_submission(self, submission_id: str, body: dict[str, str], target: str) -> Submission:
        # Sent once; a lost reply is decided by reading the submission's status.
        path = f"/api/v1/submissions/{submission_id}/transition/"
        return _decided_by_reading(
            lambda: resources.submission(self._send("POST", path, json=body, retry=False)),
            lambda: self.get_submission(submission_id),
            lambda read: read.status == target,
        )

    # -- money --------------------------------------------------------------------------------

    def create_bonus_payment(self, study_id: str, lines: Sequence[tuple[str, Decimal]]) -> BulkBonus:
        """Set up (not pay) bonuses: (submission or participant id, amount in the study currency).

        The answer's amount, fees, VAT and total are in cents (BulkBonus keeps them so).
        """
        if not lines:
            raise MarketRejectedError("a bulk bonus needs at least one line")
        csv = "\n".join(f"{ref},{_amount(amount)}" for ref, amount in lines)
        body = {"study_id": study_id, "csv_bonuses": csv}
        raw = self._send("POST", "/api/v1/submissions/bonus-payments/", json=body, retry=False)
        return resources.bulk_bonus(raw, study_id)

    def pay_bonus_payment(self, bulk_id: str) -> str:
        """Pay a bulk bonus: one attempt, never retried. Anything but a clear answer is 'unclear'."""
        url = f"{self.base_url}/api/v1/bulk-bonus-payments/{bulk_id}/pay/"
        for attempt in range(1, self.attempts + 1):
            try:
                response = self.session.request("POST", url, json={}, timeout=self.timeout)
            except requests.RequestException as exc:
                raise PaymentOutcomeUnclearError(
                    f"no answer to pay {bulk_id}: {exc}", code="network"
                ) from exc
            if response.status_code != 429 or attempt == self.attempts:
                break
            # Turned away before any transaction: waiting as asked, then asking again, pays once.
            self.sleep(self._wait(throttled(response), attempt))
        if response.status_code == 429:
            raise throttled(response)  # nothing was paid: the ledger may send it again
        if response.status_code in TRANSIENT_STATUS:
            # A 5xx may come after the payment was queued; only reading state can tell.
            raise PaymentOutcomeUnclearError(
                f"Prolific answered {response.status_code} to pay {bulk_id}",
                code=str(response.status_code),
                excerpt=response.text,
            )
        raise_for_status(response)
        return response.text[:500]

    def bonuses_paid(self, submission_id: str) -> tuple[int, ...]:
        """Bonus amounts already paid on a submission, in cents, in no documented order."""
        return self.get_submission(submission_id).bonus_cents

    def study_cost(self, reward_cents: int, places: int) -> Decimal:
        """What a study of this reward and size costs, fees and VAT included, in cents of the account's
        currency (Prolific's study cost calculator; reading it changes nothing, so it may be retried)."""
        body = {"reward": reward_cents, "total_available_places": places}
        return Decimal(str(self._send("POST", "/api/v1/study-cost-calculator/", json=body)["total_cost"]))

    def get_project(self, project_id: str) -> Project:
        if not project_id:
            raise MarketConfigError("PROLIFIC_PROJECT_ID is not set")
        return resources.project(self._send("GET", f"/api/v1/projects/{project_id}/"))

    def get_balance(self, workspace_id: str) -> Balance:
        if not workspace_id:
            raise MarketConfigError("no Prolific workspace to read the balance of")
        return resources.balance(self._send("GET", f"/api/v1/workspaces/{workspace_id}/balance/"))

    # -- participant groups (our blocklist) ---------------------------------------------------

    def list_participant_groups(self, workspace_id: str) -> Iterator[ParticipantGroup]:
        for raw in self._pages("/api/v1/participant-groups/", {"workspace_id": workspace_id}):
            yield resources.participant_group(raw)

    def create_participant_group(self, workspace_id: str, name: str, description: str) -> ParticipantGroup:
        """Create a group once; a lost reply is decided by looking for the group of this name."""
        body = {"name": name, "workspace_id": workspace_id, "description": description}

        def named() -> ParticipantGroup | None:
            found = [g for g in self.list_participant_groups(workspace_id) if g.name == name]
            return found[0] if found else None

        created = _decided_by_reading(
            lambda: resources.participant_group(
                self._send("POST", "/api/v1/participant-groups/", json=body, retry=False)
            ),
            named,
            lambda read: read is not None,
        )
        assert created is not None  # the reading above returns only a group it found
        return created

    def participant_group_members(self, group_id: str) -> list[str]:
        """The participants in a group (how unblocking reads our blocklist, whatever we hold here)."""
        body = self._send("GET", f"/api/v1/participant-groups/{group_id}/participants/")
        return [str(member["participant_id"]) for member in body.get("results") or []]

    def add_to_participant_group(self, group_id: str, participant_ids: Sequence[str]) -> None:
        """Add participants; those already in the group are ignored by Prolific, so repeating is safe."""
        body = {"participant_ids": list(participant_ids)}
        self._send("POST", f"/api/v1/participant-groups/{group_id}/participants/", json=body)

    def remove_from_participant_group(self, group_id: str, participant_ids: Sequence[str]) -> None:
        """Remove participants; those not in the group are ignored by Prolific, so repeating is safe."""
        # DELETE with a JSON body, as Prolific documents it ("Remove participants from a participant
        # group", docs.prolific.com/api-reference/participant-groups/remove-from-participant-group) and
        # its official client sends it (prolific-oss/cli, client/participant_group.go,
        # RemoveParticipantGroupMembers: DeleteRequest with the participant_ids body, expects 200).
        body = {"participant_ids": list(participant_ids)}
        self._send("DELETE", f"/api/v1/participant-groups/{group_id}/participants/", json=body)

    # -- plumbing -----------------------------------------------------------------------------

    def _pages(self, path: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Every result of a list, `limit`/`offset` page by page, until `meta.count` (or, with no count,
        an empty page: a short one may not be the last)."""
        offset = 0
        for _ in range(MAX_PAGES):
            page = self._send("GET", path, params={**params, "limit": self.page_size, "offset": offset})
            results = list(page.get("results") or [])
            yield from results
            offset += len(results)
            count = (page.get("meta") or {}).get("count")
            # Prolific may serve fewer than asked per page: trust the count, else read to an empty page.
            done = count is not None and offset >= int(count)
            if not results or done:
                return
        raise MarketError(f"{path}: still more after {MAX_PAGES} pages; stopped")

    def _send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        retry: bool = True,
    ) -> dict[str, Any]:
        url = path if path.startswith("http") else f"{self.base_url}{path}"
        attempts = self.attempts if retry else 1
        for attempt in range(1, attempts + 1):
            try:
                return self._once(method, url, json, params)
            except MarketUnavailableError as exc:
                if attempt == attempts:
                    raise
                log.info("Prolific transient error (attempt %d/%d): %s", attempt, attempts, exc)
                self.sleep(self._wait(exc, attempt))
        raise AssertionError("unreachable: the loop returns or raises")

    def _wait(self, exc: MarketUnavailableError, attempt: int) -> float:
        backoff = self.backoff * 2 ** (attempt - 1)
        if isinstance(exc, ProlificThrottledError) and exc.retry_after is not None:
            return min(max(exc.retry_after, backoff), MAX_RETRY_AFTER)
        return backoff

    def _once(self, method: str, url: str, json: Any, params: dict[str, Any] | None) -> dict[str, Any]:
        try:
            response = self.session.request(method, url, json=json, params=params, timeout=self.timeout)
        except BEFORE_SENDING as exc:
            raise MarketConfigError(f"Prolific request not made: {exc}", code=type(exc).__name__) from exc
        except requests.RequestException as exc:
            # The request may have left: a timeout, a refused connection, a reply broken mid-body.
            raise MarketUnavailableError(
                f"Prolific unreachable, or its reply lost: {exc}", code=type(exc).__name__
            ) from exc
        raise_for_status(response)
        try:
            body = response.json()
        except ValueError as exc:
            raise MarketError(
                "Prolific answered with something that is not JSON", excerpt=response.text
            ) from exc
        return body if isinstance(body, dict) else {"value": body}


def _decided_by_reading(act: Callable[[], R], read: Callable[[], R], done: Callable[[R], bool]) -> R:
    """`act` once; when its reply is lost, `read` the market and return what it shows if `done` says
    the action took effect. Otherwise the loss is raised again: the caller (the ledger) decides later,
    by reading again first. The action is never sent a second time here."""
    try:
        return act()
    except MarketUnavailableError as lost:
        log.info("Prolific reply lost (%s); reading the market to decide", lost)
        found = read()
        if done(found):
            return found
        raise


def _amount(amount: Decimal) -> str:
    value = Decimal(str(amount)).quantize(CENT, rounding=ROUND_HALF_UP)
    if value <= 0:
        raise MarketRejectedError(f"a bonus must be positive, got {amount}")
    return f"{value:.2f}"


def prolific_client() -> ProlificClient:
    """The platform's Prolific client (PROLIFIC_API_TOKEN, PROLIFIC_API_URL), or MARKET_CLIENTS' choice."""
    return market_client(
        "prolific", lambda: ProlificClient(settings.PROLIFIC_API_TOKEN, base_url=settings.PROLIFIC_API_URL)
    )
