"""The load benchmark's crowd, a locustfile (run by bench/load.py): simulated Prolific participants.

Each participant goes the whole path a real one does, with the page token of each page:
job page → quiz → quiz answers → job page → start → task page → answers → back to Prolific.
They think between pages (LOAD_THINK_SECONDS, low,high). A path that stops short is a failure.
Their client is locust's FastHttpUser (geventhttpclient), not HttpUser (requests): on these 2 cores the
crowd shares the cores with the server it measures, and requests' client costs several times the CPU
per request (locust's documentation), which the server's latency then pays for.
The job, study and quiz answers come from the environment (bench._load_site seed prints them).
"""

from __future__ import annotations

import json
import os
import re
import secrets
from typing import Any

from locust import FastHttpUser, between, task

SEED = json.loads(os.environ["LOAD_SEED"])
THINK = tuple(float(part) for part in os.environ.get("LOAD_THINK_SECONDS", "1,3").split(","))
TOKEN = re.compile(r'name="page_token" value="([^"]+)"')
CHOICE = re.compile(r'type="radio" name="(item-\d+)" value="([^"]*)"')
# As behind the TLS proxy (deploy/Caddyfile), which sets the header; DEBUG is off in the served app.
HEADERS = {"X-Forwarded-Proto": "https"}


class PathError(AssertionError):
    """A page that did not lead where a participant's next step goes."""


class Participant(FastHttpUser):
    wait_time = between(*THINK)

    @task
    def whole_path(self) -> None:
        job = SEED["job"]
        params = {
            "PROLIFIC_PID": secrets.token_hex(12),
            "STUDY_ID": SEED["study"],
            "SESSION_ID": secrets.token_hex(12),
        }
        self._get(
            f"/annotate/jobs/{job}/", params, "job page", token=False
        )  # no start button before the quiz
        quiz = self._get(f"/annotate/jobs/{job}/quiz/", params, "quiz page")
        self.wait()
        self._post(
            f"/annotate/jobs/{job}/quiz/",
            params,
            {**SEED["quiz"], "page_token": _token(quiz)},
            "quiz answers",
        )
        home = self._get(f"/annotate/jobs/{job}/", params, "job page")
        task_url = self._post(f"/annotate/jobs/{job}/start/", params, {"page_token": _token(home)}, "start")
        page = self._get(task_url, {}, "task page")
        answers = dict(reversed(CHOICE.findall(page)))  # the first choice of each item
        if not answers:
            raise PathError("the task page shows no items")
        self.wait()
        self._post(task_url, {}, {**answers, "page_token": _token(page)}, "task answers")

    def _get(self, path: str, params: dict[str, str], name: str, token: bool = True) -> str:
        """A page that must be served whole, with its page token unless told otherwise."""
        with self.client.get(
            path, params=params, headers=HEADERS, name=name, catch_response=True
        ) as response:
            if response.status_code != 200 or (token and not TOKEN.search(response.text)):
                response.failure(f"{response.status_code} without a page token: {response.text[:200]}")
                raise PathError(name)
            return str(response.text)

    def _post(self, path: str, params: dict[str, str], data: dict[str, Any], name: str) -> str:
        """A POST that must redirect (to the next page, or back to Prolific); the redirect's target."""
        with self.client.post(
            path,
            params=params,
            data=data,
            headers=HEADERS,
            name=name,
            allow_redirects=False,
            catch_response=True,
        ) as response:
            if response.status_code != 302:
                response.failure(f"{response.status_code}: {response.text[:200]}")
                raise PathError(name)
            return str(response.headers["Location"])


def _token(page: str) -> str:
    return TOKEN.findall(page)[0]
