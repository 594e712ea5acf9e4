"""What Prolific's HTTP statuses mean, as the market interface's named errors: a 429 is a throttle that did
nothing (with its Retry-After), a 5xx transient, a 401/403 a refused token, any other 4xx a refusal."""

from __future__ import annotations

import requests

from annotation.market_interface.errors import (
    MarketAuthError,
    MarketBusyError,
    MarketRejectedError,
    MarketUnavailableError,
)
from annotation.markets.prolific import resources

TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})


class ProlificThrottledError(MarketBusyError):
    """A 429: nothing was done, and Prolific asks us to wait `retry_after` seconds (its Retry-After)."""

    def __init__(self, message: str, *, retry_after: float | None, excerpt: str = "") -> None:
        super().__init__(message, retry_after=retry_after, code="429", excerpt=excerpt)


def raise_for_status(response: requests.Response) -> None:
    """Nothing for a success; otherwise the named error its status means (transient, auth, refused)."""
    status = response.status_code
    if status < 400:
        return
    text = response.text
    try:
        summary = resources.error_summary(response.json())
    except ValueError:
        summary = ""
    said = f": {summary}" if summary else ""
    if status == 429:
        raise throttled(response, said)
    if status in TRANSIENT_STATUS:
        raise MarketUnavailableError(f"Prolific answered {status}{said}", code=str(status), excerpt=text)
    if status in (401, 403):
        raise MarketAuthError(f"Prolific refused the token ({status}){said}", code=str(status), excerpt=text)
    raise MarketRejectedError(
        f"Prolific refused the request ({status}){said}", code=str(status), excerpt=text
    )


def throttled(response: requests.Response, said: str = "") -> ProlificThrottledError:
    return ProlificThrottledError(
        f"Prolific throttled the request{said}",
        retry_after=retry_after_header(response),
        excerpt=response.text,
    )


def retry_after_header(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return float(value)
    except ValueError:
        return None  # absent, or an HTTP date: fall back to our own backoff
