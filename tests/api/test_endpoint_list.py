"""`/api/` lists the endpoints to anyone logged in (each endpoint still checks its own permission)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def test_any_logged_in_person_reads_the_list_of_endpoints(client: Client) -> None:
    person = User.objects.create_user("ann", password="x-unused-0")
    listed = client.get("/api/", HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=person).key}")
    assert listed.status_code == 200
    assert {"jobs", "releases", "crawls"} <= set(listed.json())
    jobs = client.get("/api/jobs/", HTTP_AUTHORIZATION=listed.request["HTTP_AUTHORIZATION"])
    assert jobs.status_code == 403


def test_a_stranger_is_refused(client: Client) -> None:
    assert client.get("/api/").status_code in (401, 403)


def test_a_browser_gets_the_list_as_a_page_with_a_way_home_and_to_the_docs(client: Client) -> None:
    client.force_login(User.objects.create_user("lead", password="x-unused-0", is_staff=True))

    page = client.get("/api/", HTTP_ACCEPT="text/html,application/xhtml+xml")
    text = page.content.decode()

    assert page["Content-Type"].startswith("text/html")
    assert 'href="/"' in text and 'href="/api/docs/"' in text
    assert "/api/jobs/" in text


def test_the_api_docs_have_a_way_home(client: Client) -> None:
    text = client.get("/api/docs/").content.decode()

    assert 'href="/"' in text and 'href="/api/"' in text and 'id="swagger-ui"' in text
