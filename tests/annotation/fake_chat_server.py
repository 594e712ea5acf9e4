"""A fake chat-completions server on 127.0.0.1 (real HTTP), following the published schema:
https://platform.openai.com/docs/api-reference/chat/create (the chat.completion object: choices[].
message.content, message.refusal when the model refuses, usage.prompt_tokens/completion_tokens/
total_tokens) and https://platform.openai.com/docs/guides/error-codes (429 with an error object).

Each request takes the next scripted behaviour: ("label", text) replies with ``text`` as the content,
("refusal", text) with a refusal, ("429",) refuses for rate, ("status", "401") answers with that
error status, ("timeout",) answers too late for the client, ("lost",) closes the connection without a
reply. Every request is counted in ``calls``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOO_LATE = 2.0  # seconds: past the tests' client timeout
# The error statuses the error-codes guide lists besides 429, as ("status", "401") scripts them.
ERRORS = {
    400: "This model's maximum context length is exceeded.",
    401: "Incorrect API key provided.",
    403: "You are not allowed to sample from this model.",
    404: "The model does not exist.",
    500: "The server had an error while processing your request.",
    503: "The engine is currently overloaded, please try again later.",
}


class FakeChat:
    def __init__(self) -> None:
        self.script: deque[tuple[str, ...]] = deque()
        self.calls: list[dict[str, Any]] = []
        self.url = ""


def _completion(body: dict[str, Any], content: str | None, refusal: str | None) -> dict[str, Any]:
    prompt_tokens = sum(len(m["content"]) for m in body["messages"]) // 4
    return {
        "id": f"chatcmpl-fake{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 2, "total_tokens": prompt_tokens + 2},
    }


def _handler(fake: FakeChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet in tests
            pass

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout), as a real server sees it

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.calls.append(body)
            kind, *rest = fake.script.popleft() if fake.script else ("label", "SUPPORT")
            if kind == "lost":
                self.close_connection = True
                return
            if kind == "timeout":
                time.sleep(TOO_LATE)
            if kind == "429":
                error = {
                    "message": "Rate limit reached",
                    "type": "requests",
                    "param": None,
                    "code": "rate_limit_exceeded",
                }
                self._send(429, {"error": error}, {"retry-after": "1"})
                return
            if kind == "status":
                status = int(rest[0])
                error = {
                    "message": ERRORS[status],
                    "type": "invalid_request_error",
                    "param": None,
                    "code": None,
                }
                self._send(status, {"error": error})
                return
            content, refusal = (
                (None, rest[0]) if kind == "refusal" else (rest[0] if rest else "SUPPORT", None)
            )
            self._send(200, _completion(body, content, refusal))

    return Handler


@contextmanager
def fake_chat_server() -> Iterator[FakeChat]:
    fake = FakeChat()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
