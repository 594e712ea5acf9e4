"""Queries per worker page, counted along a Prolific participant's whole path: a budget per page, and
the same count whatever the number of items in a HIT (no query per item)."""

from __future__ import annotations

import secrets

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation.models import Job
from tests.annotation.test_market_pages import PROLIFIC, market_job, quiz_answers, token_of, url

pytestmark = pytest.mark.django_db

# What each page costs today inside a test's transaction, on PostgreSQL and SQLite alike: more is a
# regression to look at, fewer a budget to lower.
BUDGET = {
    "job page, first visit": 6,
    "quiz page": 2,
    "quiz answers": 6,
    "job page": 2,
    "start": 17,
    "task page": 2,
    "task answers": 7,
}


def path_queries(client: Client, job: Job) -> tuple[dict[str, int], int]:
    """Queries per page of one new participant's path, and the number of items they answered."""
    params = {**PROLIFIC, "PROLIFIC_PID": secrets.token_hex(12), "SESSION_ID": secrets.token_hex(12)}
    counts: dict[str, int] = {}

    def page(name: str, method: str, path: str, data: dict[str, str] | None = None) -> object:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path) if method == "get" else client.post(path, data)
        assert response.status_code in (200, 302), (name, response.status_code)
        counts[name] = len(queries.captured_queries)
        return response

    page("job page, first visit", "get", url("job", job.pk, params))
    quiz = page("quiz page", "get", url("quiz", job.pk, params))
    page(
        "quiz answers", "post", url("quiz", job.pk, params), {**quiz_answers(), "page_token": token_of(quiz)}
    )
    home = page("job page", "get", url("job", job.pk, params))
    task_url = page("start", "post", url("start", job.pk, params), {"page_token": token_of(home)})["Location"]  # type: ignore[index]
    task = page("task page", "get", task_url)
    names = {name for name in task.context["form"].fields}  # type: ignore[attr-defined]
    page("task answers", "post", task_url, {**dict.fromkeys(names, "SUPPORT"), "page_token": token_of(task)})
    return counts, len(names)


@pytest.mark.parametrize("perspectives", [2, 5])
def test_each_worker_page_keeps_to_its_query_budget_whatever_the_size_of_the_hit(
    client: Client, perspectives: int
) -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"], perspectives=perspectives)
    counts, items = path_queries(client, job)
    assert items == 2 * perspectives  # both claims' perspectives, in one HIT
    assert counts == BUDGET
