"""A job's worker count must be one its task's rule can aggregate: create_job (command, API, admin)
refuses one worker per item for a task decided by agreement, says why, and allows it when asked."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.authtoken.models import Token

from annotation.models import Job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def test_create_job_refuses_one_worker_for_a_task_decided_by_agreement() -> None:
    make_corpus(claims=2, perspectives=1)
    with pytest.raises(CommandError, match="needs at least 2 workers per item; 1 would leave every item"):
        call_command("create_job", "stance", "--workers", "1")
    assert not Job.objects.exists()


def test_an_explicit_flag_allows_it() -> None:
    make_corpus(claims=2, perspectives=1)
    call_command("create_job", "stance", "--workers", "1", "--allow-single-worker")
    assert Job.objects.get().workers_per_item == 1


def test_one_writer_per_item_is_fine_for_a_task_that_is_not_aggregated(capsys: pytest.CaptureFixture) -> None:
    make_corpus(claims=2, perspectives=1)
    call_command("create_job", "paraphrase_writing", "--workers", "1", "--limit", "1")
    assert Job.objects.get().workers_per_item == 1
    assert "× 1 worker\n" in capsys.readouterr().out  # and the count speaks in the singular


def test_the_api_refuses_it_too_and_says_why(client: Client) -> None:
    make_corpus(claims=2, perspectives=1)
    lead = User.objects.create_user("lead", password="x-unused-0", is_staff=True)
    lead.groups.set(Group.objects.filter(name="researcher"))
    headers = {"HTTP_AUTHORIZATION": f"Token {Token.objects.create(user=lead).key}"}
    body = {"task_type": "stance", "market": "inhouse", "params": {"workers_per_item": 1}}

    refused = client.post("/api/jobs/", body, content_type="application/json", **headers)
    allowed = client.post(
        "/api/jobs/", {**body, "allow_single_worker": True}, content_type="application/json", **headers
    )

    assert refused.status_code == 400 and "at least 2 workers per item" in refused.json()["detail"]
    assert allowed.status_code == 201
