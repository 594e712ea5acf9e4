"""After a HIT: the page says when the answers were saved, and offers a next HIT only when there is one."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment
from annotation.work.assignments import items_of
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus
from tests.annotation.test_views import quiz_answers

pytestmark = pytest.mark.django_db


def do_one_hit(client: Client, job_id: int) -> str:
    client.force_login(User.objects.get_or_create(username="ann")[0])
    client.post(reverse("annotation:quiz", args=[job_id]), quiz_answers())
    url = client.post(reverse("annotation:start", args=[job_id]))["Location"]
    assignment = Assignment.objects.filter(state="accepted").get()
    done = client.post(url, {f"item-{item.pk}": "SUPPORT" for item in items_of(assignment)})
    assert done.status_code == 200
    return done.content.decode()


def test_the_last_hit_says_when_it_was_saved_and_offers_no_next_one(client: Client) -> None:
    make_corpus(claims=1, perspectives=2)
    job = publish_job(create_job("stance", {}, market="inhouse").pk)

    page = do_one_hit(client, job.pk)

    assert re.search(r"Saved at \d\d:\d\d:\d\d\.", page)
    assert "Next HIT" not in page and "There is no more work for you in this job" in page


def test_a_hit_with_more_to_come_offers_the_next_one(client: Client) -> None:
    make_corpus(claims=20, perspectives=2)
    job = publish_job(create_job("stance", {}, market="inhouse").pk)
    assert job.hits.count() > 1

    page = do_one_hit(client, job.pk)

    assert re.search(r"Saved at \d\d:\d\d:\d\d\.", page) and "Next HIT" in page
