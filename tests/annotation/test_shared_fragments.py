"""A HIT's unanswered items are rendered once and shared by its workers' task pages; a page with
answers to mark, a layout of the researcher's, or a cache out of reach is rendered as it is."""

from __future__ import annotations

import re
import secrets
from unittest import mock

import pytest
from django.core.cache import cache
from django.test import Client
from redis import RedisError

from annotation.models import Assignment, Job
from annotation.web import fragments
from tests.annotation.test_market_pages import PROLIFIC, market_job, reach_the_task, token_of

pytestmark = pytest.mark.django_db

ITEMS = re.compile(rb'<fieldset class="item".*</fieldset>', re.DOTALL)


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
        mock.patch.object(cache, "get", side_effect=RedisError("down")),
        mock.patch.object(cache, "set", side_effect=RedisError("down")),
    ):
        page = client.get(task_url)
    assert page.status_code == 200 and b'type="radio"' in page.content
