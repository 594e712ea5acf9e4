"""A HIT's unanswered items are rendered once and shared by its workers' task pages, and so are a task
type's quiz questions; a page with answers to mark, a layout of the researcher's, or a cache out of
reach is rendered as it is."""

from __future__ import annotations

import contextlib
import re
import secrets
from unittest import mock

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from redis import RedisError

from annotation.models import Assignment, Job, Response
from annotation.web import fragments
from tests.annotation.test_market_pages import PROLIFIC, market_job, reach_the_task, token_of, url

pytestmark = pytest.mark.django_db

ITEMS = re.compile(rb'<fieldset class="item".*</fieldset>', re.DOTALL)
CHOICE = re.compile(r'type="radio" name="(item-\d+)" value="([^"]*)"')


def participant() -> dict[str, str]:
    return {**PROLIFIC, "PROLIFIC_PID": secrets.token_hex(12), "SESSION_ID": secrets.token_hex(12)}


def task_of(job: Job) -> tuple[Client, str]:
    client = Client()
    return client, reach_the_task(client, job, participant())


def items_markup(content: bytes) -> bytes:
    found = ITEMS.search(content)
    assert found, "the page shows no items"
    return found.group(0)


def test_workers_of_one_hit_are_shown_the_same_items_rendered_once() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    (first, first_url), (second, second_url) = task_of(job), task_of(job)
    assert first_url != second_url  # two assignments of the one HIT
    shown = first.get(first_url)
    key = fragments.items_key(job, Assignment.objects.get(pk=first_url.split("/")[3]).hit_id)
    assert cache.get(key) is not None
    cache.set(key, '<fieldset class="item">shared</fieldset>')
    again = second.get(second_url)
    assert items_markup(again.content) == b'<fieldset class="item">shared</fieldset>'
    assert token_of(again) != token_of(shown)  # each worker's own page token, outside the shared part
    cache.delete(key)
    assert items_markup(second.get(second_url).content) == items_markup(shown.content)


def test_a_page_with_missing_answers_marks_them_instead_of_showing_the_shared_items() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    client, task_url = task_of(job)
    page = client.get(task_url)
    answered = client.post(task_url, {"page_token": token_of(page)})
    assert answered.status_code == 200
    assert b"Please answer every item" in answered.content and b"Choose one." in answered.content
    assert b"Choose one." not in client.get(task_url).content  # the fresh page is the shared one


def test_a_researchers_mturk_layout_is_never_shared() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    Job.objects.filter(pk=job.pk).update(task_type="mturk_template")
    job.refresh_from_db()
    assert fragments.items_key(job, job.hits.get().pk) == ""


def test_a_cache_out_of_reach_costs_the_page_its_rendering_only() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    client, task_url = task_of(job)
    with (
        mock.patch.object(cache, "has_key", side_effect=RedisError("down")),
        mock.patch.object(cache, "get", side_effect=RedisError("down")),
        mock.patch.object(cache, "set", side_effect=RedisError("down")),
    ):
        page = client.get(task_url)
    assert page.status_code == 200 and b'type="radio"' in page.content


def test_a_page_whose_items_are_stored_reads_only_their_ids_and_its_token_takes_the_answers() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    (first, first_url), (second, second_url) = task_of(job), task_of(job)
    first.get(first_url)  # renders the HIT's items and stores them
    with CaptureQueriesContext(connection) as queries:
        page = second.get(second_url)
    assert not [q for q in queries.captured_queries if '"annotation_item"' in q["sql"]]
    answers = dict(reversed(CHOICE.findall(page.content.decode())))
    assert len(answers) == Assignment.objects.get(pk=second_url.split("/")[3]).hit.items.count()
    done = second.post(second_url, {**answers, "page_token": token_of(page)})
    assert done.status_code == 302
    assert Response.objects.filter(assignment_id=second_url.split("/")[3]).count() == len(answers)


def calls_for(key: str, client: Client, url: str) -> dict[str, int]:
    """How many times the page's request asked the cache about `key`, per cache method."""
    methods = ("get", "has_key", "get_many", "set", "add")
    with contextlib.ExitStack() as stack:
        spies = {
            name: stack.enter_context(mock.patch.object(cache, name, wraps=getattr(cache, name)))
            for name in methods
        }
        assert client.get(url).status_code == 200
    counts = {
        name: sum(key in (c.args[0] if c.args else ()) for c in spy.call_args_list)
        for name, spy in spies.items()
    }
    return {name: count for name, count in counts.items() if count}


def test_a_task_page_asks_the_cache_for_its_shared_items_once_stored_or_not() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    (first, first_url), (second, second_url) = task_of(job), task_of(job)
    key = fragments.items_key(job, Assignment.objects.get(pk=first_url.split("/")[3]).hit_id)

    assert calls_for(key, first, first_url) == {"get": 1, "set": 1}  # not there yet: rendered, stored
    assert calls_for(key, second, second_url) == {"get": 1}


def test_items_read_as_missing_are_rendered_for_the_page() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    client, task_url = task_of(job)
    shown = client.get(task_url)
    with mock.patch.object(cache, "get", return_value=None):
        again = client.get(task_url)
    assert items_markup(again.content) == items_markup(shown.content)
    assert token_of(again)


QUESTIONS = re.compile(rb'<fieldset class="item" data-question=.*</fieldset>', re.DOTALL)


def test_the_quiz_questions_are_rendered_once_for_every_worker_of_every_job() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    first, second = Client(), Client()
    shown = first.get(url("quiz", job.pk, participant()))
    key = fragments.quiz_key(job.task_type)
    assert cache.get(key).strip() == QUESTIONS.search(shown.content).group(0).decode()  # type: ignore[union-attr]
    try:
        cache.set(key, '<fieldset class="item" data-question="q1">shared</fieldset>')
        again = second.get(url("quiz", job.pk, participant()))
    finally:
        cache.delete(key)  # the key is every job's, in whatever cache the tests share
    shared = QUESTIONS.search(again.content).group(0)  # type: ignore[union-attr]
    assert shared == b'<fieldset class="item" data-question="q1">shared</fieldset>'
    assert token_of(again) != token_of(shown)  # each worker's own page token, outside the shared part


def test_quiz_answers_with_one_missing_are_marked_instead_of_showing_the_shared_questions() -> None:
    job = market_job("prolific", PROLIFIC["STUDY_ID"])
    client, params = Client(), participant()
    page = client.get(url("quiz", job.pk, params))
    answered = client.post(url("quiz", job.pk, params), {"page_token": token_of(page)})
    assert answered.status_code == 200 and b'class="error"' in answered.content
