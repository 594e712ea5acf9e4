"""Check Prolific requests and responses against schema.json, the part of Prolific's published API we use.

Used by the fake Prolific beside it (fake.py) and the tests' recorded transport, so every request the
client builds and every answer a fake serves it is held to Prolific's published API: an endpoint, a
query parameter, a field, a type, an enum value or a unit the description does not have is refused.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

SCHEMA = Path(__file__).resolve().with_name("schema.json")
API_HOST = "api.prolific.com"


class SchemaViolation(AssertionError):
    """A request or response that Prolific's published schema does not allow."""


@dataclass(frozen=True)
class Endpoint:
    operation: str
    method: str
    path: str
    spec: dict[str, Any]

    def matches(self, method: str, path: str) -> bool:
        pattern = "^" + re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(self.path)) + "$"
        return method == self.method and re.match(pattern, path) is not None


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text())
    return loaded


@cache
def endpoints() -> tuple[Endpoint, ...]:
    return tuple(Endpoint(e["operation"], e["method"], e["path"], e) for e in schema()["endpoints"])


def endpoint(method: str, url: str) -> Endpoint:
    """The documented endpoint a request goes to; a SchemaViolation when there is none."""
    parts = urlsplit(url)
    if parts.netloc and parts.netloc != API_HOST:
        raise SchemaViolation(f"{method} {url}: not Prolific's API host {API_HOST}")
    for found in endpoints():
        if found.matches(method, parts.path):
            return found
    raise SchemaViolation(f"{method} {parts.path}: no such endpoint in Prolific's published API")


def by_operation(operation: str) -> Endpoint:
    return next(found for found in endpoints() if found.operation == operation)


def _problems(fragment: dict[str, Any], value: Any) -> list[str]:
    from jsonschema import Draft202012Validator  # loads with the first check, not with every process

    validator = Draft202012Validator({"$defs": schema()["$defs"], **fragment})
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
        for e in validator.iter_errors(value)
    ]


def _query_problems(found: Endpoint, url: str) -> list[str]:
    documented = found.spec.get("query", {})
    problems = []
    for name, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items():
        if name not in documented:
            problems.append(f"query parameter {name!r} is not documented")
            continue
        kind = documented[name]
        value: Any = values[-1]
        if kind.get("type") == "integer":
            value = int(value) if value.isdigit() else value
        problems += [f"query {name}: {p}" for p in _problems(kind, value)]
    return problems


def check_request(method: str, url: str, body: Any) -> Endpoint:
    """Raise SchemaViolation unless Prolific documents this request; return its endpoint."""
    found = endpoint(method, url)
    problems = _query_problems(found, url)
    request = found.spec.get("request")
    if request is None and body not in (None, {}):
        problems.append("this endpoint takes no body")
    elif request is not None:
        problems += _problems(request, {} if body is None else body)
    if problems:
        raise SchemaViolation(f"{method} {urlsplit(url).path}: " + "; ".join(problems))
    return found


def response_problems(found: Endpoint, status: int, body: Any) -> list[str]:
    """What is wrong with a response to `found`: an undocumented status, or a body off its schema."""
    if status >= 400:
        return _problems({"$ref": "#/$defs/Error"}, body) if body is not None else []
    documented = found.spec["responses"].get(str(status))
    if documented is None:
        return [f"{found.operation} does not answer {status}"]
    return _problems(documented, body)


def check_response(found: Endpoint, status: int, body: Any) -> None:
    problems = response_problems(found, status, body)
    if problems:
        raise SchemaViolation(f"{found.operation} {status}: " + "; ".join(problems))


def transitions() -> dict[str, dict[str, Any]]:
    """Study action → {"from": statuses it is accepted in, "to": the status it leads to}."""
    table = dict(by_operation("transition-study").spec["x-transitions"])
    table.pop("$comment", None)
    return table
