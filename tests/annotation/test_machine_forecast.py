"""A job with a machine beside the crowd is refused before anything is spent when its forecast exceeds
the job's budget (issue 46, item 5): `create_job`, the API and the new-job page refuse it in the
same words, and keep nothing."""

from __future__ import annotations

import json
from decimal import Decimal
from html import unescape
from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.machines.services import register_annotator
from annotation.models import Job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

PLAN = {"annotator": "m", "target_error": 0.1, "confidence": 0.95, "calibration_items": 10}


def create(*extra: str) -> str:
    claims = ",".join(str(claim.cid) for claim in make_corpus(claims=40, perspectives=1))
    out = StringIO()
    asked = ["--claims", claims, "--workers", "3", "--bundle", "1", "--reward", "0.10"]
    call_command("create_job", "stance", *asked, "--param", f"machine={json.dumps(PLAN)}", *extra, stdout=out)
    return out.getvalue()


def refusal(*extra: str) -> str:
    with pytest.raises(CommandError) as refused:
        create(*extra)
    return str(refused.value)


def test_create_job_refuses_a_forecast_over_the_budget_and_keeps_nothing() -> None:
    # 40 items, one a HIT (10 first, to calibrate), 3 workers at 0.10 each: the crowd alone costs at
    # most 12.00 (in-house: no fee); a local machine costs nothing
    message = refusal("--budget", "11.99")

    assert "forecast exceeds the job's budget of 11.99 USD" in message
    assert "the crowd at most 12.00 USD" in message and "the machine at most 0.00 USD" in message
    assert not Job.objects.exists()


def test_a_forecast_within_the_budget_is_created_and_printed() -> None:
    register_annotator("m", "stance", "local", "tfidf+logistic")

    said = create("--budget", "12.00")

    assert Job.objects.count() == 1
    assert "the crowd's cost is at most 12.00 USD and the machine's at most 0.00 USD" in said


def test_a_machine_not_trained_yet_is_said_not_to_be_counted() -> None:
    said = create()

    assert "the machine's not counted (m is not trained or registered yet)" in said


def test_a_chat_machines_calls_count_at_their_worst_case() -> None:
    register_annotator(
        "m",
        "stance",
        "openai_compatible",
        "a-model",
        prompt_version="stance-1",
        settings={"price_per_1k_tokens": "1.00"},
    )

    message = refusal("--budget", "12.00")

    machine = Decimal(message.split("the machine at most ")[1].split(" ")[0])
    assert machine > 0 and "exceeds the job's budget of 12.00 USD" in message


def test_the_api_and_the_new_job_page_refuse_it_in_the_same_words() -> None:
    message = refusal("--budget", "11.99")
    claims = ",".join(str(claim.cid) for claim in make_corpus(claims=40, perspectives=1))
    person = User.objects.create_user("lead", password="a-long-test-password", is_staff=True)
    person.groups.set(Group.objects.filter(name="researcher"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=person).key}")
    page = Client()
    page.force_login(person)

    answered = api.post(
        "/api/jobs/",
        {
            "task_type": "stance",
            "market": "inhouse",
            "filters": {"claims": claims},
            "budget": "11.99",
            "params": {"workers_per_item": 3, "groups_per_hit": 1, "reward": "0.10", "machine": PLAN},
        },
        format="json",
    )
    shown = {
        action: page.post(
            "/jobs/new/",
            {
                "task_type": "stance",
                "market": "inhouse",
                "redundancy": "fixed",
                "claims": claims,
                "workers": "3",
                "bundle": "1",
                "reward": "0.10",
                "budget": "11.99",
                "machine": json.dumps(PLAN),
                "action": action,
            },
        )
        for action in ("forecast", "save")
    }

    assert answered.status_code == 400 and answered.json() == {"detail": message}
    for action, response in shown.items():
        assert response.status_code == 200, action
        assert message in unescape(response.content.decode()), action
    assert not Job.objects.exists()
