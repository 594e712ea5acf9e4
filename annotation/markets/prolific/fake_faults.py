"""Faults on demand for the fake Prolific (fake.py): a 429 (`throttle`), a 503 (`unavailable`), a reply
lost after the work was done (`lose_reply`, `break_reply`, or `fail_after` for a 502), a market that is
down (`down`), and a reply held until a test releases it (`hold`) so a fault can land at the worst moment.
Each answers in Prolific's error format (`error_reply`), as the real market would.
"""

from __future__ import annotations

import threading
from typing import Any

import requests

HOLD_LIMIT = 60.0  # seconds a held reply waits at most, should a test forget to release it


def error_reply(status: int, title: str, detail: str) -> dict[str, Any]:
    """An error body in Prolific's format (status, error_code, title, detail)."""
    return {"error": {"status": status, "error_code": status * 1000 + 1, "title": title, "detail": detail}}


class FaultsOnDemand:
    """The part of FakeProlific that fails when a test asks it to."""

    def faults_cleared(self) -> None:
        self.throttled: set[str] = set()  # operations answered 429 once
        self.unavailable_once: set[str] = set()  # operations answered 503 once, doing nothing
        self.lost: set[str] = set()  # operations carried out once, their reply lost on the way back
        self.failed_after: set[str] = set()  # operations carried out once, then answered 502
        self.down = False  # every request fails to connect (the market is unreachable)
        # operations carried out once, their reply then broken mid-body (a ChunkedEncodingError, …)
        self.broken: dict[str, type[requests.RequestException]] = {}
        self.holding = _Hold()
        self.retry_after: dict[str, str] = {}  # operation → the Retry-After of its next 429
        # Per thread: the loopback server answers several requests at once, and a 429's headers are
        # written after the fake has answered (and maybe answered another request).
        self.answering = threading.local()

    @property
    def last_retry_after(self) -> str:
        """The Retry-After of the 429 this thread was just answered ("" for any other answer)."""
        return str(getattr(self.answering, "retry_after", ""))

    def throttle(self, operation: str, *, retry_after: float | None = None) -> None:
        """Answer the next request to `operation` (e.g. "pay-bonus-payments") with a 429, doing nothing;
        with `retry_after`, the answer carries that Retry-After header (seconds)."""
        self.throttled.add(operation)
        if retry_after is not None:
            self.retry_after[operation] = str(retry_after)

    def unavailable(self, operation: str) -> None:
        """Answer the next request to `operation` with a 503, doing nothing (the caller cannot tell)."""
        self.unavailable_once.add(operation)

    def lose_reply(self, operation: str) -> None:
        """Carry out the next request to `operation`, then lose its reply (a read timeout)."""
        self.lost.add(operation)

    def break_reply(
        self,
        operation: str,
        error: type[requests.RequestException] = requests.exceptions.ChunkedEncodingError,
    ) -> None:
        """Carry out the next request to `operation`, then break its reply mid-body with `error`."""
        self.broken[operation] = error

    def fail_after(self, operation: str) -> None:
        """Carry out the next request to `operation`, then answer 502 (a gateway that lost the reply)."""
        self.failed_after.add(operation)

    def hold(self, nth: int, operation: str, *, unpaid: bool = False) -> None:
        """Carry out the `nth` request to `operation`, then keep its reply until `release` is set.

        With `unpaid`, only requests about a submission with no bonus yet count (the read made while
        a bonus row is claimed, before the bonus is set up). `held` is set once the work is done."""
        self.holding = _Hold(operation, nth, unpaid)

    @property
    def held(self) -> threading.Event:
        return self.holding.held

    @property
    def release(self) -> threading.Event:
        return self.holding.release

    def _fault_before(self, operation: str) -> tuple[int, Any] | None:
        """The refusal a request meets before it does anything (a 429, a 503), if one was asked for."""
        self.answering.retry_after = ""
        if operation in self.throttled:
            self.throttled.discard(operation)
            self.answering.retry_after = self.retry_after.pop(operation, "")
            return 429, error_reply(429, "Too many requests", "Request was throttled.")
        if operation in self.unavailable_once:
            self.unavailable_once.discard(operation)
            return 503, error_reply(503, "Service unavailable", "Try again later.")
        return None

    def _fault_after(self, operation: str, status: int, reply: Any) -> tuple[int, Any]:
        """The reply to a request carried out: lost or broken (raised), a 502, or as it was."""
        if operation in self.lost:
            self.lost.discard(operation)
            raise requests.ReadTimeout(f"the reply to {operation} was lost")
        if operation in self.broken:
            raise self.broken.pop(operation)(f"the reply to {operation} broke mid-body")
        if operation in self.failed_after:
            self.failed_after.discard(operation)
            return 502, error_reply(502, "Bad gateway", "The upstream reply was lost.")
        return status, reply


class _Hold:
    """Which reply to hold (the `nth` request to `operation`), and the events around it."""

    def __init__(self, operation: str = "", nth: int = 0, unpaid: bool = False) -> None:
        self.operation, self.nth, self.unpaid = operation, nth, unpaid
        self.seen = 0
        self.held, self.release = threading.Event(), threading.Event()

    def counts(self, operation: str, unpaid: bool) -> bool:
        """Count this request if it is of the kind held; true when it is the one to hold."""
        if operation != self.operation or (self.unpaid and not unpaid):
            return False
        self.seen += 1
        return self.seen == self.nth

    def wait(self) -> None:
        self.held.set()
        self.release.wait(HOLD_LIMIT)
