"""Done-when: a whole job scripted over HTTP with `requests` against a live server: create, publish
(in-house), annotate through the worker pages, aggregate, and fetch the outcomes."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
import requests
from django.contrib.auth.models import Group, User
from rest_framework.authtoken.models import Token

from tests.annotation.factories import make_corpus
from tests.annotation.test_views import quiz_answers

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-test-password"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def csrf(session: requests.Session, url: str) -> str:
    page = session.get(url, timeout=30)
    assert page.status_code == 200, page.text[:500]
    found = CSRF.search(page.text)
    assert found is not None
    return found.group(1)


def annotate(base: str, job: int, username: str) -> int:
    """Log in, pass the quiz, and do HITs until there is no more work; returns the HITs done."""
    person = requests.Session()
    token = csrf(person, f"{base}/annotate/login/")
    login = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token, "next": "/annotate/"}
    logged_in = person.post(f"{base}/annotate/login/", data=login, timeout=30)
    assert logged_in.status_code == 200
    token = csrf(person, f"{base}/annotate/jobs/{job}/quiz/")
    person.post(
        f"{base}/annotate/jobs/{job}/quiz/", data={**quiz_answers(), "csrfmiddlewaretoken": token}, timeout=30
    )
    hits = 0
    while True:
        token = csrf(person, f"{base}/annotate/jobs/{job}/")
        task = person.post(
            f"{base}/annotate/jobs/{job}/start/", data={"csrfmiddlewaretoken": token}, timeout=30
        )
        if task.status_code != 200 or "/annotate/assignments/" not in task.url:
            return hits
        names = sorted(set(re.findall(r'name="(item-\d+)"', task.text)))
        token = CSRF.search(task.text).group(1)  # type: ignore[union-attr]
        saved = person.post(task.url, timeout=30, data={"csrfmiddlewaretoken": token,
                                                         **{name: "SUPPORT" for name in names}})  # fmt: skip
        assert "your answers are saved" in saved.text
        hits += 1


def test_a_job_scripted_over_http_from_creation_to_outcomes(live_server: Any, settings: Any) -> None:
    settings.WORKER_PSEUDONYM_KEY = "e2e-tests-pseudonym-key-0123456789"
    make_corpus(claims=3, perspectives=1)
    lead = User.objects.create_user("lead", password="x-unused-0", is_staff=True)
    lead.groups.set(Group.objects.filter(name__in=["researcher", "approver"]))
    api = requests.Session()
    api.headers["Authorization"] = f"Token {Token.objects.create(user=lead).key}"
    for name in ("ada", "bob"):
        User.objects.create_user(name, password=PASSWORD)
    base = live_server.url

    # 1. Create and publish (in-house, two workers per item).
    made = api.post(f"{base}/api/jobs/", json={"task_type": "stance", "market": "inhouse",
                                               "params": {"workers_per_item": 2}}, timeout=30)  # fmt: skip
    assert made.status_code == 201, made.text
    job = made.json()["id"]
    operation = api.post(f"{base}/api/jobs/{job}/publish/", timeout=30).json()
    for _ in range(50):
        if api.get(f"{base}/api/operations/{operation['id']}/", timeout=30).json()["state"] == "done":
            break
        time.sleep(0.1)
    assert api.get(f"{base}/api/jobs/{job}/", timeout=30).json()["state"] in ("published", "collecting")

    # 2. Two annotators do every HIT through the worker pages.
    hits = annotate(base, job, "ada") + annotate(base, job, "bob")
    assert hits >= 2

    # 3. Progress, then aggregation and its outcomes, over the API.
    progress = api.get(f"{base}/api/jobs/{job}/progress/", timeout=30).json()
    assert progress["assignments_done"] == progress["assignments_wanted"] == hits
    assert api.post(f"{base}/api/jobs/{job}/aggregate/", json={}, timeout=30).status_code == 202
    outcomes = api.get(f"{base}/api/jobs/{job}/outcomes/", timeout=30).json()
    assert outcomes["count"] == 3 and {o["label"] for o in outcomes["results"]} == {"SUPPORT"}
    rows = api.get(f"{base}/api/jobs/{job}/responses/", params={"format": "csv"}, timeout=30)
    assert rows.headers["Content-Type"].startswith("text/csv") and rows.text.count("\n") == 1 + 6
