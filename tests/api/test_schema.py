"""The API against its own OpenAPI schema with schemathesis: generated requests to every operation
(bounded examples), no 5xx, and every response matches the schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error, response_schema_conformance

from config.wsgi import application
from export.services import build_release
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_schema(settings: Any, tmp_path: Path) -> Iterator[Any]:
    settings.RELEASES_DIR, settings.WORKER_PSEUDONYM_KEY = tmp_path, "schema-tests-pseudonym-key-0123456789"
    job = stance_job(make_corpus(claims=2, perspectives=1))
    answer(job, {key: ["SUPPORT", "UNDERMINE", "SUPPORT"] for key in keys(job)})
    build_release("1.0")
    # The WSGI handler closes the database connection after each request, which would end the test's
    # transaction; Django's test client holds these signals off the same way.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/", application)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def token(api_schema: Any) -> str:
    return Token.objects.create(user=User.objects.create_superuser("scripted", password="x-unused-0")).key


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_answers_every_generated_request_as_its_schema_says(case: Any, token: str) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Token {token}"}, checks=[not_a_server_error, response_schema_conformance]
    )
