"""A recorded Prolific for the client's tests: a fake transport answering each request from the
recorded responses of tests/fixtures/prolific, holding every request and every answer to Prolific's
published schema (annotation/markets/prolific/schema.py). Its fixtures (`market`, `waits`, `prolific`) are
in conftest.py."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
from requests.adapters import BaseAdapter

from annotation.markets.prolific.schema import check_request, check_response
from annotation.markets.prolific.studies import StudySpec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "prolific"


STUDY = "60f6acb180a7b59ac0621f9e"


SUBMISSION = "60d9aadeb86739de712faee0"


BULK = "621014cb8e9e0f81e387021f"


PROJECT = "62fce6fff0a78eb4f3ebc09c"


WORKSPACE = "644aaabfaf6bbc363b9d47c6"


GROUP = "6429b0ea05b2a24cac83c3a4"


# (status, fixture file) or (status, fixture file, headers), or an exception the transport raises.
Reply = tuple[int, str] | tuple[int, str, dict[str, str]] | Exception


class RecordedProlific(BaseAdapter):
    """Answers each (method, path) from a queue of recorded replies and keeps every request.

    Each request must be one Prolific documents, and each recorded answer must match the
    documented response of the endpoint it answers: a SchemaViolation fails the test otherwise.
    """

    def __init__(self) -> None:
        super().__init__()
        self.replies: dict[tuple[str, str], deque[Reply]] = {}
        self.requests: list[tuple[str, str, Any]] = []

    def add(self, method: str, path: str, reply: Reply) -> None:
        self.replies.setdefault((method, path), deque()).append(reply)

    def workspace(self, times: int, project: str = "62fce6fff0a78eb4f3ebc09c") -> None:
        """The project's workspace and its balance (in GBP), read before each of `times` spending calls."""
        for _ in range(times):
            self.add("GET", f"/api/v1/projects/{project}/", (200, "project.json"))
            self.add("GET", "/api/v1/workspaces/644aaabfaf6bbc363b9d47c6/balance/", (200, "balance.json"))

    def calls(self, method: str, path: str) -> int:
        return sum(1 for m, url, _ in self.requests if m == method and urlsplit(url).path == path)

    def queries(self, method: str, path: str) -> list[dict[str, str]]:
        found = [url for m, url, _ in self.requests if m == method and urlsplit(url).path == path]
        return [{k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()} for url in found]

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        parts = urlsplit(str(request.url))
        body = json.loads(request.body) if request.body else None
        endpoint = check_request(str(request.method), str(request.url), body)
        self.requests.append((str(request.method), str(request.url), body))
        queue = self.replies.get((str(request.method), parts.path))
        if not queue:
            raise AssertionError(f"unexpected {request.method} {request.url}")
        reply = queue.popleft()
        if isinstance(reply, Exception):
            raise reply
        status, fixture, *rest = reply
        headers: dict[str, str] = rest[0] if rest else {}
        content = (FIXTURES / fixture).read_bytes() if fixture else b""
        check_response(endpoint, status, json.loads(content) if content else None)
        response = requests.Response()
        response.status_code = status
        response._content = content
        response.headers["Content-Type"] = "application/json"
        response.headers.update(headers)
        response.url = str(request.url)
        response.request = request
        return response

    def close(self) -> None:
        pass


def spec(**changes: Any) -> StudySpec:
    fields: dict[str, Any] = {
        "name": "Stance verification, batch 1",
        "internal_name": "job-12-batch-1",
        "description": "Read a claim and say whether each perspective supports or undermines it.",
        "task_url": "https://stancework.example/work/12/",
        "places": 3,
        "reward_cents": 150,
        "minutes": 12,
        "completion_code": "C1A2B3C4",
        "project": PROJECT,
        "blocklist_group": GROUP,
    }
    return StudySpec(**{**fields, **changes})
