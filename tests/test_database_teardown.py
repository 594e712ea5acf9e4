"""The test database can be dropped when the session ends: nothing a test leaves behind keeps a session
on it (PostgreSQL refuses to drop a database another session is using, and pytest-django then only
warns "database ... is being accessed by other users", leaving the database behind)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from tests.annotation.test_browser import page  # noqa: F401  (the Chromium page fixture)

pytestmark = [pytest.mark.postgres, pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# A closed connection's backend leaves pg_stat_activity a moment after the client hangs up.
SETTLE_SECONDS = 5.0


def other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@pytest.fixture
def no_session_left() -> Iterator[None]:
    """Set up before the fixtures listed after it, so torn down after them: then no other session may
    remain on the test database."""
    yield
    deadline = time.monotonic() + SETTLE_SECONDS
    while other_sessions() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert other_sessions() == 0, "a session on the test database outlived the test's fixtures"


def test_the_orm_used_beside_chromium_leaves_no_session_on_the_test_database(
    no_session_left: None,
    page: Any,  # noqa: F811
) -> None:
    User.objects.create_user("annotator", password="a-long-test-password")
    page.set_content("<p>a page</p>")
    assert User.objects.count() == 1
