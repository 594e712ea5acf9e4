"""CPU and queries per worker page, measured in one process (run by bench/load.py in the served app's
environment, or by hand to profile):

    python -m bench._load_pages PATHS [--profile FILE]

Seeds a Prolific job as the load benchmark does, then walks PATHS participants through the whole
path (job page → quiz → answers → job page → start → task page → answers) with Django's test client,
which runs the same middleware and views as gunicorn does, posting forms urlencoded as browsers and
the load's crowd do. Prints one JSON line per page type: CPU milliseconds per request (process time,
a first warm-up path left out) and database queries per request (counted on a second walk). With
--profile, the CPU walk runs under cProfile, whose statistics (CPU time) are written to FILE and the
costliest functions printed.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import re
import secrets
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import django

TOKEN = re.compile(r'name="page_token" value="([^"]+)"')
CHOICE = re.compile(r'type="radio" name="(item-\d+)" value="([^"]*)"')
HEADERS = {"HTTP_X_FORWARDED_PROTO": "https", "HTTP_HOST": "127.0.0.1"}
FORM = "application/x-www-form-urlencoded"

Measured = Callable[[str, Callable[[], Any]], Any]


def walk(client: Any, seed: dict[str, Any], measure: Measured) -> None:
    """One participant's whole path, each request measured under its page type's name."""
    job = seed["job"]
    participant, session = secrets.token_hex(12), secrets.token_hex(12)
    query = {"PROLIFIC_PID": participant, "STUDY_ID": seed["study"], "SESSION_ID": session}
    params = "?" + "&".join(f"{k}={v}" for k, v in query.items())
    home = f"/annotate/jobs/{job}/"
    measure("job page", lambda: client.get(home + params, **HEADERS))
    quiz = measure("quiz page", lambda: client.get(f"{home}quiz/{params}", **HEADERS))
    answers = {**seed["quiz"], "page_token": _token(quiz)}
    _moved(measure("quiz answers", lambda: _post(client, f"{home}quiz/{params}", answers)))
    page = measure("job page", lambda: client.get(home + params, **HEADERS))
    started = {"page_token": _token(page)}
    task = _moved(measure("start", lambda: _post(client, f"{home}start/{params}", started)))
    form = measure("task page", lambda: client.get(task, **HEADERS))
    chosen = {**dict(reversed(CHOICE.findall(form.content.decode()))), "page_token": _token(form)}
    _moved(measure("task answers", lambda: _post(client, task, chosen)))


def _post(client: Any, path: str, data: dict[str, str]) -> Any:
    """A form POST as browsers and the load's crowd send it: urlencoded (the test client's default,
    multipart, costs the server more to parse)."""
    return client.post(path, urlencode(data), content_type=FORM, **HEADERS)


def _token(response: Any) -> str:
    found = TOKEN.search(response.content.decode())
    if response.status_code != 200 or found is None:
        raise RuntimeError(f"{response.status_code} without a page token: {response.content[:200]!r}")
    return found.group(1)


def _moved(response: Any) -> str:
    if response.status_code != 302:
        raise RuntimeError(f"expected a redirect, got {response.status_code}: {response.content[:200]!r}")
    return str(response["Location"])


def cpu_walks(paths: int, seed: dict[str, Any], profile: cProfile.Profile | None) -> dict[str, list[float]]:
    from django.test import Client

    spent: dict[str, list[float]] = defaultdict(list)

    def measure(name: str, request: Callable[[], Any]) -> Any:
        started = time.process_time()
        response = request()
        spent[name].append(time.process_time() - started)
        return response

    walk(Client(), seed, lambda name, request: request())  # warm-up: imports, template loading
    if profile is not None:
        profile.enable()
    for _ in range(paths):
        walk(Client(), seed, measure)
    if profile is not None:
        profile.disable()
    return spent


def query_walks(paths: int, seed: dict[str, Any]) -> dict[str, list[int]]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    counted: dict[str, list[int]] = defaultdict(list)

    def measure(name: str, request: Callable[[], Any]) -> Any:
        with CaptureQueriesContext(connection) as queries:
            response = request()
        counted[name].append(len(queries))
        return response

    for _ in range(paths):
        walk(Client(), seed, measure)
    return counted


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from bench._load_site import seed

    paths = int(argv[0])
    profile_file = argv[argv.index("--profile") + 1] if "--profile" in argv else None
    seeded = seed(claims=max(4, paths), workers_per_item=10)
    # Timed by CPU, not the clock: waiting for PostgreSQL costs the web tier no CPU.
    profile = cProfile.Profile(time.process_time) if profile_file else None
    spent = cpu_walks(paths, seeded, profile)
    counted = query_walks(min(paths, 10), seeded)
    for name, times in spent.items():
        figures = {
            "page": name,
            "requests": len(times),
            "cpu_ms": round(1000 * sum(times) / len(times), 2),
            "queries": round(sum(counted[name]) / len(counted[name]), 1),
        }
        print(json.dumps(figures))
    if profile is not None and profile_file:
        profile.dump_stats(profile_file)
        stats = pstats.Stats(profile, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main(sys.argv[1:])
