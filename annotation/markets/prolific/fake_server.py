"""The fake Prolific (fake.py) on a loopback HTTP server, for a client in another process.

A Celery worker started as its own OS process reaches it through PROLIFIC_API_URL, so a fault test can
kill that worker and still count, in the test's process, what the market did. The server only carries
requests: the market, its schema checks and its faults are the fake's. A reply the fake loses (or a
market that is down) closes the connection unanswered; a request off Prolific's schema is answered 400
and kept in `refused`, so whoever runs the server can fail on it.
"""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.fake_faults import error_reply
from annotation.markets.prolific.schema import API_HOST, SchemaViolation


class FakeProlificServer:
    """Serves `market` on a free loopback port while entered; `url` is the base URL to give a client."""

    def __init__(self, market: FakeProlific | None = None) -> None:
        self.market = market or FakeProlific()
        self.refused: list[str] = []  # requests Prolific's schema does not allow, as the fake said
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-prolific", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeProlificServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.market.release.set()  # a held reply must not outlive the server
        if self.thread.is_alive():  # shutdown() waits for a serve_forever that never started
            self.server.shutdown()
        self.server.server_close()
        if self.thread.is_alive():
            self.thread.join(timeout=10)

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any] | None:
        """The fake's (status, body) for a request, or None when no reply is to be sent."""
        try:
            # The schema knows Prolific's host only: the request is checked as if it had gone there.
            return self.market.respond(method, f"https://{API_HOST}{path}", body)
        except SchemaViolation as refused:
            self.refused.append(str(refused))
            return 400, error_reply(400, "Bad request", str(refused))
        except requests.RequestException:
            return None


def _handler(served: FakeProlificServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            answered = served.answer(self.command, self.path, json.loads(raw) if raw else None)
            if answered is None:
                self.close_connection = True  # the reply is lost: the caller hears nothing
                return
            status, reply = answered
            payload = json.dumps(reply).encode()
            # The caller may have been killed while the fake held its answer: nobody is left to read it.
            with contextlib.suppress(OSError):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429 and served.market.last_retry_after:
                    self.send_header("Retry-After", served.market.last_retry_after)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per call would drown the test output

    return Handler
