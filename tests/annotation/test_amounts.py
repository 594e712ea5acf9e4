"""Money typed in: every door that creates a job (the API, the admin, the command) refuses an amount
that is not finite, is negative, is over the job's cap or finer than its currency, and creates nothing."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Job
from annotation.planning.amounts import MoneyError, check_amount, check_job_money
from tests.annotation.factories import make_corpus

# (field, value): each a sum of money no job may be created with.
HOSTILE = [
    *[("reward", value) for value in ("NaN", "Infinity", "-Infinity", "1e30", [1], {"a": 1}, True, "-1")],
    ("reward", "0.001"),
    *[("budget", value) for value in ("NaN", "Infinity", "1e30", "-1", "0.001")],
    ("bonus_cap", "NaN"),
    ("bonus_cap", "-1"),
    ("bonus_cap", "1e30"),
    ("fee_rate", "NaN"),
    ("fee_rate", "2"),
]


def _body(field: str, value: Any) -> dict[str, Any]:
    if field == "budget":
        return {"budget": value, "params": {}}
    return {"params": {field: value}}


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "value"), HOSTILE)
def test_the_api_answers_400_and_creates_no_job(field: str, value: Any) -> None:
    from tests.api.test_api import client_for

    make_corpus(claims=1, perspectives=1)
    body = {"task_type": "stance", "market": "inhouse", **_body(field, value)}

    response = client_for("researcher").post("/api/jobs/", body, format="json")

    assert response.status_code == 400, response.content
    assert not Job.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "value"), HOSTILE)
def test_the_admin_shows_the_error_and_creates_no_job(client: Client, field: str, value: Any) -> None:
    make_corpus(claims=1, perspectives=1)
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    given = _body(field, value)
    form = {"name": "", "task_type": "stance", "market": "inhouse", "filters": "{}",
            "params": json.dumps(given["params"]), "budget": given.get("budget", ""),
            "hits-TOTAL_FORMS": "0", "hits-INITIAL_FORMS": "0"}  # fmt: skip

    response = client.post(reverse("admin:annotation_job_add"), form)

    assert response.status_code == 200
    assert re.findall(r'class="errorlist[^"]*"[^>]*><li>([^<]*)', response.content.decode())
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_the_admin_creates_a_job_with_sound_amounts(client: Client) -> None:
    make_corpus(claims=1, perspectives=1)
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    form = {"name": "", "task_type": "stance", "market": "inhouse", "filters": "{}",
            "params": '{"reward": "0.25", "bonus_cap": "2"}', "budget": "10",
            "hits-TOTAL_FORMS": "0", "hits-INITIAL_FORMS": "0"}  # fmt: skip

    assert client.post(reverse("admin:annotation_job_add"), form).status_code == 302
    assert Job.objects.get().reward == Decimal("0.25")


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "value"), [(f, v) for f, v in HOSTILE if isinstance(v, str)])
def test_the_command_says_what_is_wrong_and_creates_no_job(field: str, value: str) -> None:
    make_corpus(claims=1, perspectives=1)
    option = ["--budget", value] if field == "budget" else ["--param", f"{field}={json.dumps(value)}"]

    with pytest.raises(CommandError, match=field):
        call_command("create_job", "stance", *option)
    assert not Job.objects.exists()


def test_a_reward_over_the_budget_is_refused() -> None:
    with pytest.raises(MoneyError, match=r"reward 5\.00 is over 4 USD"):
        check_job_money({"currency": "USD", "reward": "5.00"}, "4")


def test_amounts_keep_to_the_currency_s_smallest_unit() -> None:
    assert check_amount("0.05", name="reward", currency="USD") == Decimal("0.05")
    assert check_amount("0.100", name="reward", currency="USD") == Decimal("0.1")
    assert check_amount("1e30", name="reward", currency="USD") == Decimal("1e30")  # no cap given
    assert check_amount("500", name="reward", currency="JPY") == Decimal(500)
    with pytest.raises(MoneyError, match="finer than JPY pays"):
        check_amount("0.5", name="reward", currency="JPY")


def test_a_long_bad_value_is_quoted_only_in_part() -> None:
    with pytest.raises(MoneyError) as caught:
        check_amount("x" * 10_000, name="reward", currency="USD")
    assert len(str(caught.value)) < 100
