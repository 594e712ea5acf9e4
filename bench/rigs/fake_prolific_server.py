"""A fake Prolific on a loopback HTTP server: the three calls a bonus makes, every payment counted.

Real Prolific pays a bulk bonus every time its pay call comes, so a resend after a fault really
pays twice; this fake does the same and counts payments per submission, which is what the fault
tests read. It can hold one answer (`hold`) after doing the work, so a test can inject its fault at
the worst moment: paid at the market, not yet known to the ledger.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import uuid
from collections import Counter
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD_LIMIT = 60.0  # seconds a held answer waits at most, should a test forget to release it


# -- the market ----------------------------------------------------------------------------------


class FakeProlificMarket:
    """Prolific's bonus calls on a loopback HTTP server, counting every payment per submission."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bulks: dict[str, list[tuple[str, int]]] = {}
        self.payments: Counter[str] = Counter()  # submission id → bonuses paid to it
        self.pay_calls: Counter[str] = Counter()  # bulk id → pay calls received
        self.seen: Counter[str] = Counter()  # calls seen per kind: "pay", "read-before-bonus"
        self.hold_at: tuple[str, int] = ("", 0)  # hold the reply to the nth call of this kind
        self.held = threading.Event()  # set once the held call has been processed
        self.release = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-prolific", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeProlificMarket:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()  # a held handler must not outlive the test
        if self.thread.is_alive():  # shutdown() waits for a serve_forever that never started
            self.server.shutdown()
        self.server.server_close()
        if self.thread.is_alive():
            self.thread.join(timeout=10)

    def hold(self, nth: int, call: str = "pay") -> None:
        """Answer the `nth` call of this kind, then keep the answer until `release` is set.

        "pay": the pay call (the money has moved); "read-before-bonus": the read of a submission not
        paid yet (the engine's check while it holds the claimed bonus row, before setting it up).
        """
        self.hold_at = (call, nth)

    def paid(self, submission_id: str) -> int:
        with self.lock:
            return self.payments[submission_id]

    def answer(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            return self._route(method, path, body)

    def _route(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if method == "GET" and (found := re.fullmatch(r"/api/v1/submissions/([\w-]+)/", path)):
            hold = not self.payments[found[1]] and self._count("read-before-bonus")
            return 200, {**self._submission(found[1]), "hold": hold}
        if method == "POST" and path == "/api/v1/submissions/bonus-payments/":
            return 201, self._set_up(body)
        if method == "POST" and (found := re.fullmatch(r"/api/v1/bulk-bonus-payments/([\w-]+)/pay/", path)):
            return self._pay(found[1])
        return 404, {"error": f"no {method} {path} at this fake"}

    def _submission(self, submission_id: str) -> dict[str, Any]:
        paid = [cents for bulk in self.bulks.values() for ref, cents in bulk if ref == submission_id]
        return {
            "id": submission_id,
            "participant_id": f"pid-{submission_id}",
            "status": "APPROVED",
            # Only paid bulks show on the submission, one entry per payment.
            "bonus_payments": paid[: self.payments[submission_id]],
        }

    def _set_up(self, body: dict[str, Any]) -> dict[str, Any]:
        lines = [line.split(",") for line in body["csv_bonuses"].splitlines()]
        bulk_id = f"bulk-{uuid.uuid4().hex[:16]}"
        self.bulks[bulk_id] = [(ref, int(Decimal(amount) * 100)) for ref, amount in lines]
        total = str(sum(Decimal(amount) for _, amount in lines))
        return {"id": bulk_id, "study": body["study_id"], "amount": total, "fees": "0", "total_amount": total}

    def _pay(self, bulk_id: str) -> tuple[int, dict[str, Any]]:
        if bulk_id not in self.bulks:
            return 404, {"error": f"no bulk {bulk_id}"}
        # Like Prolific: every pay call pays, however often it comes for the same bulk.
        self.pay_calls[bulk_id] += 1
        for ref, _ in self.bulks[bulk_id]:
            self.payments[ref] += 1
        return 202, {"hold": self._count("pay")}

    def _count(self, call: str) -> bool:
        """Count a call of this kind; true when it is the one to hold."""
        self.seen[call] += 1
        return self.hold_at == (call, self.seen[call])

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        market = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, reply = market.answer(self.command, self.path.split("?")[0], body)
                if reply.pop("hold", False):
                    market.held.set()
                    market.release.wait(HOLD_LIMIT)
                payload = json.dumps(reply).encode()
                # The caller may have been killed while we held its answer: nobody is left to read it.
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

            do_GET = do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass  # one line per call would drown the test output

        return Handler
