"""PostgreSQL connections bind values on the server, so a statement run again is prepared, and still
run a statement with more values than the protocol can number (config/postgres_binding.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_a_statement_run_again_on_a_connection_is_prepared() -> None:
    for n in range(3):
        User.objects.filter(username=f"nobody-{n}").exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    assert any('FROM "auth_user"' in statement and "$1" in statement for statement in prepared), prepared


def test_a_statement_with_more_values_than_the_protocol_numbers_still_runs() -> None:
    User.objects.create_user("somebody", password="x-unused-0")
    assert User.objects.filter(pk__in=range(70_000)).count() == 1
