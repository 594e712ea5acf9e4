"""Framing and CSRF by visitor kind: only worker pages may be framed, and only by the markets' sites.

Worker pages get CSP frame-ancestors naming WORKER_FRAME_ANCESTORS (by default, the sites each
market declares); every other response gets
X-Frame-Options: DENY and frame-ancestors 'none'.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

from annotation.market_interface.base import WorkerIdentityError
from annotation.market_interface.registry import from_market, market_ids, worker_sites
from annotation.web.page_tokens import TOKEN_FIELD, signed_for

WORKER_PAGE_ATTR = "stancework_worker_page"


def frame_ancestors() -> str:
    sites = settings.WORKER_FRAME_ANCESTORS or worker_sites()
    return "frame-ancestors 'self' " + " ".join(sites)


View = Callable[..., HttpResponse]


def worker_page(view: View) -> View:
    """Mark a view as a worker page: CSRF and framing by visitor kind.

    - A logged-in user (an in-house annotator, staff) always gets Django's CSRF check and is never
      framable, whatever the URL carries.
    - A market visitor (market parameters, nobody logged in) has their ids checked at the boundary
      (a 400 for a malformed one, before anything is read or written) and may be framed by the
      markets' worker sites. Their POST skips the cookie-based CSRF check only with a page token we
      signed for the same ids: CSRF cookies do not survive inside a third-party iframe.
    - Bodies larger than WORKER_PAGE_MAX_BODY_BYTES are refused (413) before they are read.
    """
    csrf = CsrfViewMiddleware(lambda request: HttpResponse())

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _declared_length(request) > settings.WORKER_PAGE_MAX_BODY_BYTES:
            return HttpResponse(
                "This page takes small submissions only.", status=413, content_type="text/plain"
            )
        params = (
            request.GET.dict() if request.method != "POST" else {**request.GET.dict(), **request.POST.dict()}
        )
        user = getattr(request, "user", None)
        if (user is not None and user.is_authenticated) or not from_market(params):
            refused = csrf.process_view(request, view, args, kwargs)
            return refused if refused is not None else view(request, *args, **kwargs)
        try:
            ids = market_ids(params)
        except WorkerIdentityError as error:
            return HttpResponseBadRequest(f"This link is not valid: {error}", content_type="text/plain")
        token = request.POST.get(TOKEN_FIELD, "") if request.method == "POST" else ""
        if request.method == "POST" and (ids is None or not signed_for(token, ids)):
            refused = csrf.process_view(request, view, args, kwargs)
            if refused is not None:
                return refused
        return _framable_by_markets(view(request, *args, **kwargs))

    wrapped.worker_page = True  # type: ignore[attr-defined]  # read by the URL sweep test
    return csrf_exempt(wrapped)


def _framable_by_markets(response: HttpResponse) -> HttpResponse:
    """Mark a market visitor's response as a worker page the markets' sites may frame."""
    setattr(response, WORKER_PAGE_ATTR, True)
    response.xframe_options_exempt = True  # type: ignore[attr-defined]
    # A task type's own policy (no script for an untrusted MTurk template) is kept.
    policy = response.get("Content-Security-Policy", "")
    response["Content-Security-Policy"] = f"{policy}; {frame_ancestors()}" if policy else frame_ancestors()
    return response


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


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
