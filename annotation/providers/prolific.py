"""Prolific's REST API (https://docs.prolific.com/api-reference), token auth, through `requests`.

A study per job batch; participants arrive at our external study URL with PROLIFIC_PID, STUDY_ID
and SESSION_ID and leave through the completion redirect. Approve and reject are idempotent on
Prolific's side. Bonuses are two calls: set up a bulk bonus payment (harmless to repeat: an unpaid
one pays nobody), then pay it. The pay call is NOT idempotent (Prolific pays twice if asked twice),
so `pay_bonus_payment` makes exactly one attempt, never retries, and reports an unclear outcome
as `PaymentOutcomeUnclearError`; `bonuses_paid` then reads the submissions to resolve it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import requests

from annotation.providers.market_errors import (
    MarketAuthError,
    MarketConfigError,
    MarketError,
    MarketRejectedError,
    MarketUnavailableError,
    PaymentOutcomeUnclearError,
)

log = logging.getLogger(__name__)

API_URL = "https://api.prolific.com"
COMPLETION_URL = "https://app.prolific.com/submissions/complete"
# Prolific fills these in per participant; they must reach the page literally, braces and all.
URL_PLACEHOLDERS = (
    ("PROLIFIC_PID", "{{%PROLIFIC_PID%}}"),
    ("STUDY_ID", "{{%STUDY_ID%}}"),
    ("SESSION_ID", "{{%SESSION_ID%}}"),
)
MIN_REJECTION_MESSAGE = 100  # characters, per the transition endpoint's docs
REJECTION_CATEGORIES = frozenset(
    {
        "TOO_QUICKLY",
        "TOO_SLOWLY",
        "FAILED_INSTRUCTIONS",
        "INCOMP_LONGITUDINAL",
        "FAILED_CHECK",
        "LOW_EFFORT",
        "MALINGERING",
        "NO_CODE",
        "BAD_CODE",
        "NO_DATA",
        "UNSUPP_DEVICE",
        "OTHER",
    }
)
STUDY_ACTIONS = frozenset({"PUBLISH", "PAUSE", "START", "STOP"})
TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
CENT = Decimal("0.01")


def external_study_url(base_url: str) -> str:
    """Our task page URL with Prolific's three placeholders appended."""
    params = "&".join(f"{name}={placeholder}" for name, placeholder in URL_PLACEHOLDERS)
    return f"{base_url}{'&' if '?' in base_url else '?'}{params}"


def completion_redirect(code: str) -> str:
    """Where a participant goes after saving: Prolific records the completion code there."""
    return f"{COMPLETION_URL}?cc={code}"


@dataclass(frozen=True)
class StudySpec:
    """A Prolific study for one batch of a job. `reward_cents` is per participant."""

    name: str
    description: str
    task_url: str
    places: int
    reward_cents: int
    minutes: int
    completion_code: str
    internal_name: str = ""
    devices: tuple[str, ...] = ("desktop",)

    def as_request(self) -> dict[str, Any]:
        if self.places < 1 or self.reward_cents < 1 or self.minutes < 1:
            raise MarketRejectedError("a study needs places, a reward and an estimated time above zero")
        return {
            "name": self.name,
            "internal_name": self.internal_name or self.name,
            "description": self.description,
            "external_study_url": external_study_url(self.task_url),
            "prolific_id_option": "url_parameters",
            "completion_codes": [
                {
                    "code": self.completion_code,
                    "code_type": "COMPLETED",
                    # We approve after our own checks, through the ledger.
                    "actions": [{"action": "MANUALLY_REVIEW"}],
                }
            ],
            "total_available_places": self.places,
            "estimated_completion_time": self.minutes,
            "reward": self.reward_cents,
            "device_compatibility": list(self.devices),
        }


@dataclass(frozen=True)
class Study:
    study_id: str
    status: str
    places: int


@dataclass(frozen=True)
class Submission:
    submission_id: str
    participant_id: str
    status: str  # ACTIVE | AWAITING REVIEW | APPROVED | REJECTED | RETURNED | TIMED-OUT | ...
    study_code: str
    bonus_cents: tuple[int, ...] = ()


@dataclass(frozen=True)
class BulkBonus:
    bulk_id: str
    study_id: str
    amount: Decimal
    fees: Decimal
    total: Decimal


@dataclass(frozen=True)
class Balance:
    currency: str
    available_cents: int


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
        self.sleep = sleep

    # -- studies ------------------------------------------------------------------------------

    def create_study(self, spec: StudySpec) -> Study:
        """Create a draft study. Not retried: a lost reply could leave a second, unpaid draft."""
        return _study(self._send("POST", "/api/v1/studies/", json=spec.as_request(), retry=False))

    def get_study(self, study_id: str) -> Study:
        return _study(self._send("GET", f"/api/v1/studies/{study_id}/"))

    def transition_study(self, study_id: str, action: str) -> Study:
        """PUBLISH, PAUSE, START (resume) or STOP a study."""
        if action not in STUDY_ACTIONS:
            raise MarketRejectedError(f"unknown study action {action!r}; use one of {sorted(STUDY_ACTIONS)}")
        return _study(self._send("POST", f"/api/v1/studies/{study_id}/transition/", json={"action": action}))

    def publish_study(self, study_id: str) -> Study:
        return self.transition_study(study_id, "PUBLISH")

    def set_places(self, study_id: str, places: int) -> Study:
        """Set a study's total places. A total, not a delta, so sending it twice changes nothing."""
        if places < 1:
            raise MarketRejectedError(f"a study needs at least one place, got {places}")
        body = {"total_available_places": places}
        return _study(self._send("PATCH", f"/api/v1/studies/{study_id}/", json=body))

    def pause_study(self, study_id: str) -> Study:
        return self.transition_study(study_id, "PAUSE")

    def stop_study(self, study_id: str) -> Study:
        return self.transition_study(study_id, "STOP")

    # -- submissions --------------------------------------------------------------------------

    def list_submissions(self, study_id: str) -> Iterator[Submission]:
        """Every submission of a study, following the `_links.next` pages."""
        url: str | None = f"{self.base_url}/api/v1/studies/{study_id}/submissions/"
        while url:
            page = self._send("GET", url)
            yield from (_submission(raw) for raw in page.get("results", []))
            url = ((page.get("_links") or {}).get("next") or {}).get("href")

    def get_submission(self, submission_id: str) -> Submission:
        return _submission(self._send("GET", f"/api/v1/submissions/{submission_id}/"))

    def approve_submission(self, submission_id: str) -> Submission:
        return self._transition_submission(submission_id, {"action": "APPROVE"})

    def reject_submission(self, submission_id: str, message: str, category: str) -> Submission:
        """Reject with a message of at least 100 characters and one of Prolific's categories."""
        if len(message.strip()) < MIN_REJECTION_MESSAGE:
            raise MarketRejectedError(f"Prolific needs a rejection message of {MIN_REJECTION_MESSAGE}+ chars")
        if category not in REJECTION_CATEGORIES:
            raise MarketRejectedError(f"unknown rejection category {category!r}")
        body = {"action": "REJECT", "message": message, "rejection_category": category}
        return self._transition_submission(submission_id, body)

    def _transition_submission(self, submission_id: str, body: dict[str, str]) -> Submission:
        # Idempotent on Prolific's side ("the second request will be ignored"), so retrying is safe.
        return _submission(self._send("POST", f"/api/v1/submissions/{submission_id}/transition/", json=body))

    # -- money --------------------------------------------------------------------------------

    def create_bonus_payment(self, study_id: str, lines: Sequence[tuple[str, Decimal]]) -> BulkBonus:
        """Set up (not pay) bonuses: (submission or participant id, amount in the study currency)."""
        if not lines:
            raise MarketRejectedError("a bulk bonus needs at least one line")
        csv = "\n".join(f"{ref},{_amount(amount)}" for ref, amount in lines)
        raw = self._send(
            "POST",
            "/api/v1/submissions/bonus-payments/",
            json={"study_id": study_id, "csv_bonuses": csv},
            retry=False,
        )
        return BulkBonus(
            bulk_id=str(raw["id"]),
            study_id=str(raw.get("study", study_id)),
            amount=Decimal(str(raw.get("amount", 0))),
            fees=Decimal(str(raw.get("fees", 0))),
            total=Decimal(str(raw.get("total_amount", 0))),
        )

    def pay_bonus_payment(self, bulk_id: str) -> str:
        """Pay a bulk bonus: one attempt, never retried. Anything but a clear answer is 'unclear'."""
        url = f"{self.base_url}/api/v1/bulk-bonus-payments/{bulk_id}/pay/"
        try:
            response = self.session.request("POST", url, json={}, timeout=self.timeout)
        except requests.RequestException as exc:
            raise PaymentOutcomeUnclearError(f"no answer to pay {bulk_id}: {exc}", code="network") from exc
        if response.status_code in TRANSIENT_STATUS:
            # A 5xx or 429 may come after the payment was queued; only reading state can tell.
            raise PaymentOutcomeUnclearError(
                f"Prolific answered {response.status_code} to pay {bulk_id}",
                code=str(response.status_code),
                excerpt=response.text,
            )
        _raise_for_status(response)
        return response.text[:500]

    def bonuses_paid(self, submission_id: str) -> tuple[int, ...]:
        """Bonus amounts already paid on a submission, in cents (how a pay call is verified)."""
        return self.get_submission(submission_id).bonus_cents

    def get_balance(self, workspace_id: str) -> Balance:
        if not workspace_id:
            raise MarketConfigError("PROLIFIC_WORKSPACE_ID is not set")
        raw = self._send("GET", f"/api/v1/workspaces/{workspace_id}/balance/")
        return Balance(
            currency=str(raw.get("currency_code", "")), available_cents=int(raw["available_balance"])
        )

    # -- plumbing -----------------------------------------------------------------------------

    def _send(self, method: str, path: str, *, json: Any = None, retry: bool = True) -> dict[str, Any]:
        url = path if path.startswith("http") else f"{self.base_url}{path}"
        attempts = self.attempts if retry else 1
        for attempt in range(1, attempts + 1):
            try:
                return self._once(method, url, json)
            except MarketUnavailableError as exc:
                if attempt == attempts:
                    raise
                log.info("Prolific transient error (attempt %d/%d): %s", attempt, attempts, exc)
                self.sleep(self.backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable: the loop returns or raises")

    def _once(self, method: str, url: str, json: Any) -> dict[str, Any]:
        try:
            response = self.session.request(method, url, json=json, timeout=self.timeout)
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise MarketUnavailableError(f"Prolific unreachable: {exc}", code=type(exc).__name__) from exc
        _raise_for_status(response)
        try:
            body = response.json()
        except ValueError as exc:
            raise MarketError(
                "Prolific answered with something that is not JSON", excerpt=response.text
            ) from exc
        return body if isinstance(body, dict) else {"value": body}


def _raise_for_status(response: requests.Response) -> None:
    status = response.status_code
    if status < 400:
        return
    text = response.text
    if status in TRANSIENT_STATUS:
        raise MarketUnavailableError(f"Prolific answered {status}", code=str(status), excerpt=text)
    if status in (401, 403):
        raise MarketAuthError(f"Prolific refused the token ({status})", code=str(status), excerpt=text)
    raise MarketRejectedError(f"Prolific refused the request ({status})", code=str(status), excerpt=text)


def _amount(amount: Decimal) -> str:
    value = Decimal(str(amount)).quantize(CENT, rounding=ROUND_HALF_UP)
    if value <= 0:
        raise MarketRejectedError(f"a bonus must be positive, got {amount}")
    return f"{value:.2f}"


def _study(raw: Mapping[str, Any]) -> Study:
    return Study(
        study_id=str(raw["id"]),
        status=str(raw.get("status", "")),
        places=int(raw.get("total_available_places", 0)),
    )


def _submission(raw: Mapping[str, Any]) -> Submission:
    return Submission(
        submission_id=str(raw["id"]),
        participant_id=str(raw.get("participant_id") or raw.get("participant") or ""),
        status=str(raw.get("status", "")),
        study_code=str(raw.get("study_code") or raw.get("entered_code") or ""),
        bonus_cents=tuple(int(c) for c in raw.get("bonus_payments") or ()),
    )
