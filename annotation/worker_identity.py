"""Worker-page identity and framing for crowd markets.

MTurk appends assignmentId, hitId, workerId and turkSubmitTo to our task page (assignmentId is
ASSIGNMENT_ID_NOT_AVAILABLE in preview); Prolific appends PROLIFIC_PID, STUDY_ID and SESSION_ID.
Those parameters are only claims: anybody can type them. So on the first load of a worker page we
issue a signed, expiring token binding the market ids to the items served, and a submission is
accepted only with a token that verifies against the same ids and items. The token travels in the
form, not in a cookie, because browsers drop third-party cookies inside the MTurk iframe.

Framing: only worker pages may be framed, and only by the markets' worker sites
(CSP frame-ancestors); every other response gets X-Frame-Options: DENY and frame-ancestors 'none'.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
MTURK = "mturk"
PROLIFIC = "prolific"
SALT = "stancework.worker-page"
DEFAULT_SUBMIT_ORIGINS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
DEFAULT_FRAME_ANCESTORS = (
    "https://worker.mturk.com",
    "https://workersandbox.mturk.com",
    "https://www.mturk.com",
)
DEFAULT_MAX_AGE = 4 * 60 * 60  # seconds; longer than any sensible assignment duration
WORKER_PAGE_ATTR = "stancework_worker_page"


class WorkerIdentityError(ValueError):
    """A worker page request whose market identity cannot be trusted."""


class MissingParamsError(WorkerIdentityError):
    """Some, but not all, of a market's parameters are present."""


class PreviewError(WorkerIdentityError):
    """MTurk preview: nobody has accepted the HIT, so nothing may be issued or written."""


class SubmitOriginError(WorkerIdentityError):
    """turkSubmitTo points somewhere other than MTurk's own sites."""


class ForgedTokenError(WorkerIdentityError):
    """The token was not signed by us (or was altered)."""


class ExpiredTokenError(WorkerIdentityError):
    """The token is older than the allowed age."""


class TokenMismatchError(WorkerIdentityError):
    """A genuine token presented with other ids or other items than it was issued for."""


class MissingTokenError(WorkerIdentityError):
    """A market worker's submission without the token of the page it came from."""


@dataclass(frozen=True)
class MarketIds:
    """The market's names for the worker, the unit of work and the session."""

    market: str
    worker_id: str
    hit_id: str = ""  # MTurk hitId, or Prolific STUDY_ID
    assignment_id: str = ""  # MTurk assignmentId, or Prolific SESSION_ID
    submit_to: str = ""  # MTurk turkSubmitTo, already checked against the allowlist

    @property
    def preview(self) -> bool:
        return self.market == MTURK and self.assignment_id == PREVIEW_ASSIGNMENT

    def binding(self) -> list[str]:
        return [self.market, self.worker_id, self.hit_id, self.assignment_id]


MTURK_PARAMS = ("assignmentId", "hitId", "workerId", "turkSubmitTo")
PROLIFIC_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
MARKET_PARAMS = MTURK_PARAMS + PROLIFIC_PARAMS


def from_market(params: Mapping[str, str]) -> bool:
    """Whether a request names any market parameter (complete or not: `market_ids` judges that)."""
    return any(params.get(name) for name in MARKET_PARAMS)


def market_ids(params: Mapping[str, str]) -> MarketIds | None:
    """The market identity in a request's parameters; None when no market parameters are present."""
    return _mturk(params) or _prolific(params)


def _present(params: Mapping[str, str], names: Sequence[str]) -> list[str]:
    return [name for name in names if params.get(name)]


def _mturk(params: Mapping[str, str]) -> MarketIds | None:
    names = MTURK_PARAMS
    present = _present(params, names)
    if not present:
        return None
    if params.get("assignmentId") == PREVIEW_ASSIGNMENT:
        # In preview MTurk sends assignmentId and hitId only.
        return MarketIds(MTURK, "", params.get("hitId", ""), PREVIEW_ASSIGNMENT)
    if len(present) != len(names):
        raise MissingParamsError(f"MTurk parameters missing: {sorted(set(names) - set(present))}")
    return MarketIds(
        MTURK,
        params["workerId"],
        params["hitId"],
        params["assignmentId"],
        submit_origin(params["turkSubmitTo"]),
    )


def _prolific(params: Mapping[str, str]) -> MarketIds | None:
    names = PROLIFIC_PARAMS
    present = _present(params, names)
    if not present:
        return None
    if len(present) != len(names):
        raise MissingParamsError(f"Prolific parameters missing: {sorted(set(names) - set(present))}")
    return MarketIds(PROLIFIC, params["PROLIFIC_PID"], params["STUDY_ID"], params["SESSION_ID"])


def submit_origin(url: str) -> str:
    """turkSubmitTo reduced to an allowed origin (scheme and host, nothing else), or an error."""
    allowed = tuple(getattr(settings, "MTURK_SUBMIT_ORIGINS", DEFAULT_SUBMIT_ORIGINS))
    parts = urlsplit(url.strip())
    origin = f"{parts.scheme}://{parts.netloc}"
    # userinfo, ports, queries and paths are all ways to smuggle another destination in.
    if origin not in allowed or parts.username or parts.password or parts.path.strip("/") or parts.query:
        raise SubmitOriginError(f"turkSubmitTo {url!r} is not one of {list(allowed)}")
    return origin


def external_submit_url(ids: MarketIds) -> str:
    """Where the saved assignment is posted back to MTurk."""
    if ids.market != MTURK or ids.preview:
        raise WorkerIdentityError("only an accepted MTurk assignment is submitted to MTurk")
    return f"{submit_origin(ids.submit_to)}/mturk/externalSubmit"


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


# -- framing -----------------------------------------------------------------------------------


def frame_ancestors() -> str:
    sites = getattr(settings, "WORKER_FRAME_ANCESTORS", DEFAULT_FRAME_ANCESTORS)
    return "frame-ancestors 'self' " + " ".join(sites)


View = Callable[..., HttpResponse]


def worker_page(view: View) -> View:
    """Mark a view as a worker page: framable by the markets' worker sites only, CSRF by token.

    A request carrying market parameters (MTurk's, even in preview, or Prolific's) is answered
    framable by WORKER_FRAME_ANCESTORS and is exempt from Django's CSRF check: CSRF cookies do not
    survive inside a third-party iframe, so the signed page token, bound to the worker and the
    items, authenticates its submissions instead. Any other request (an in-house annotator logged
    in by session cookie) keeps the usual CSRF check and is never framable.
    """
    csrf = CsrfViewMiddleware(lambda request: HttpResponse())

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not from_market({**request.GET.dict(), **request.POST.dict()}):
            refused = csrf.process_view(request, view, args, kwargs)
            return refused if refused is not None else view(request, *args, **kwargs)
        response = view(request, *args, **kwargs)
        setattr(response, WORKER_PAGE_ATTR, True)
        response.xframe_options_exempt = True  # type: ignore[attr-defined]
        response["Content-Security-Policy"] = frame_ancestors()
        return response

    wrapped.worker_page = True  # type: ignore[attr-defined]  # read by the URL sweep test
    return csrf_exempt(wrapped)


class FramingMiddleware:
    """Every response that is not a worker page: DENY framing, by both headers."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(response, WORKER_PAGE_ATTR, False):
            if "X-Frame-Options" in response:
                del response["X-Frame-Options"]
            return response
        response["X-Frame-Options"] = "DENY"
        policy = response.get("Content-Security-Policy", "")
        if "frame-ancestors" not in policy:
            joined = f"{policy}; frame-ancestors 'none'" if policy else "frame-ancestors 'none'"
            response["Content-Security-Policy"] = joined
        return response
