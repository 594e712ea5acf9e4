"""Signed page tokens: how a market worker's submission proves it came from the page we served.

MTurk appends assignmentId, hitId, workerId and turkSubmitTo to our task page (assignmentId is
ASSIGNMENT_ID_NOT_AVAILABLE in preview); Prolific appends PROLIFIC_PID, STUDY_ID and SESSION_ID.
Those parameters are only claims: anybody can type them. So on the first load of a worker page we
issue a signed, expiring token binding the market ids to the items served, and a submission is
accepted only with a token that verifies against the same ids and items. The token travels in the
form, not in a cookie, because browsers drop third-party cookies inside the MTurk iframe.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import signing

from annotation.market_interface.base import MarketIds, MissingParamsError, WorkerIdentityError

SALT = "stancework.worker-page"
# The form field a page token travels in (a cookie would not survive the market's iframe).
TOKEN_FIELD = "page_token"
DEFAULT_MAX_AGE = 4 * 60 * 60  # seconds; longer than any sensible assignment duration


class PreviewError(WorkerIdentityError):
    """MTurk preview: nobody has accepted the HIT, so nothing may be issued or written."""


class ForgedTokenError(WorkerIdentityError):
    """The token was not signed by us (or was altered)."""


class ExpiredTokenError(WorkerIdentityError):
    """The token is older than the allowed age."""


class TokenMismatchError(WorkerIdentityError):
    """A genuine token presented with other ids or other items than it was issued for."""


class MissingTokenError(WorkerIdentityError):
    """A market worker's submission without the token of the page it came from."""


# -- tokens ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grant:
    """A verified token: who, which job, which items, when issued, and its single-use nonce."""

    ids: MarketIds
    job_id: int
    item_ids: tuple[int, ...]
    issued_at: float
    nonce: str


def issue_token(ids: MarketIds, job_id: int, item_ids: Sequence[int], *, now: float | None = None) -> str:
    """A signed token for the page just served. Refused in preview: preview writes nothing."""
    if ids.preview:
        raise PreviewError("no token in preview: the worker has not accepted the HIT")
    if not ids.worker_id:
        raise MissingParamsError("a token needs the market's worker id")
    payload = {
        "b": ids.binding(),
        "s": ids.submit_to,
        "j": job_id,
        "i": sorted(int(pk) for pk in item_ids),
        "t": now if now is not None else time.time(),
        "n": secrets.token_urlsafe(9),
    }
    return signing.Signer(salt=SALT).sign_object(payload, compress=True)


def signed_for(token: str, ids: MarketIds) -> bool:
    """Whether `token` is ours and was issued to these market ids (its age and items are the view's
    to check): what lets a market visitor's POST skip Django's cookie-based CSRF check."""
    try:
        payload: dict[str, Any] = signing.Signer(salt=SALT).unsign_object(token)
    except (signing.BadSignature, ValueError):
        return False
    return bool(payload.get("b") == ids.binding())


def verify_token(
    token: str,
    ids: MarketIds,
    job_id: int,
    item_ids: Sequence[int],
    *,
    max_age: float | None = None,
    now: float | None = None,
) -> Grant:
    """Check a submitted token against the ids and items of the submission."""
    try:
        payload: dict[str, Any] = signing.Signer(salt=SALT).unsign_object(token)
    except signing.BadSignature as exc:
        raise ForgedTokenError("the page token is not ours") from exc
    limit = max_age if max_age is not None else getattr(settings, "WORKER_TOKEN_MAX_AGE", DEFAULT_MAX_AGE)
    age = (now if now is not None else time.time()) - float(payload["t"])
    if age > limit or age < -60:
        raise ExpiredTokenError(f"the page token is {int(age)} s old; the limit is {int(limit)} s")
    if payload["b"] != ids.binding() or payload["j"] != job_id:
        raise TokenMismatchError("the page token was issued to another worker, assignment or job")
    if payload["i"] != sorted(int(pk) for pk in item_ids):
        raise TokenMismatchError("the page token was issued for other items")
    market, worker, hit, assignment = payload["b"]
    granted = MarketIds(market, worker, hit, assignment, submit_to=payload["s"])
    return Grant(granted, job_id, tuple(payload["i"]), float(payload["t"]), str(payload["n"]))
