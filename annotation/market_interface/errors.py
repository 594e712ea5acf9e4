"""What can go wrong when talking to a crowd market, named so callers can decide what to retry.

Pure: no Django, no boto3. Both market adapters (MTurk, Prolific) raise only these.
"""

from __future__ import annotations


class MarketError(Exception):
    """A crowd market refused or failed a request."""

    def __init__(self, message: str, *, code: str = "", excerpt: str = "") -> None:
        super().__init__(message)
        self.code = code
        # A short piece of the market's answer, kept for the ledger and the admin.
        self.excerpt = excerpt[:500]


class MarketUnavailableError(MarketError):
    """Transient: network trouble, a timeout, throttling or a server fault. Safe to retry later."""


class MarketBusyError(MarketUnavailableError):
    """The market turned the request away before acting on it (Prolific's 429: its paying calls check
    the wallet before each transaction and answer 429 under contention): nothing was processed, so
    even a call that is not idempotent may be sent again, once the market says it may."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, code: str = "", excerpt: str = ""
    ) -> None:
        super().__init__(message, code=code, excerpt=excerpt)
        self.retry_after = retry_after


class MarketAuthError(MarketError):
    """The credentials were refused. Retrying will not help."""


class MarketRejectedError(MarketError):
    """The market understood the request and said no (a 4xx, an MTurk RequestError)."""


class RejectionError(MarketRejectedError):
    """A rejection the market would refuse (a message too short, an unknown category); nothing was written."""


class MarketConfigError(MarketError):
    """The platform is not configured for this market (no token, no workspace, bad endpoint)."""


class PaymentOutcomeUnclearError(MarketError):
    """A paying call went out and no clear answer came back.

    The money may or may not have moved. Never repeat the call: read the market's state instead.
    """
