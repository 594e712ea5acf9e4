"""Response headers every page and file carries: no caching of private pages, no framing of files."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping

from django.http import HttpRequest, HttpResponse

PRIVATE = "private, no-store"
FRAMING = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}


class NoStoreMiddleware:
    """Worker, staff and release pages hold people's work and identities: no cache may keep them.

    Views that choose their own Cache-Control (the admin's never_cache) keep theirs.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Cache-Control" not in response:
            response["Cache-Control"] = PRIVATE
        return response


def static_headers(headers: MutableMapping[str, str], path: str, url: str) -> None:
    """WhiteNoise answers static files before any middleware runs: give them the framing headers."""
    for name, value in FRAMING.items():
        headers[name] = value
