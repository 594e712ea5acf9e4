"""`manage.py invite` prints links on the configured public URL, never a fixed port."""

from __future__ import annotations

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_invitation_links_use_the_public_url(settings, capsys: pytest.CaptureFixture) -> None:
    settings.PUBLIC_URL = "https://stance.example.org"
    call_command("invite", "coders", "--count", "2")
    links = capsys.readouterr().out.split()
    assert len(links) == 2
    assert all(link.startswith("https://stance.example.org/annotate/join/") for link in links)


def test_a_base_url_given_wins(settings, capsys: pytest.CaptureFixture) -> None:
    settings.PUBLIC_URL = "https://stance.example.org"
    call_command("invite", "coders", "--base-url", "http://10.0.0.7:8123/")
    assert capsys.readouterr().out.startswith("http://10.0.0.7:8123/annotate/join/")


def test_the_admin_s_links_use_the_public_url_whatever_host_the_request_names(settings, client) -> None:
    from django.contrib.auth.models import User
    from django.urls import reverse

    from accounts.models import Team

    settings.PUBLIC_URL = "https://stance.example.org"
    settings.ALLOWED_HOSTS = ["*"]
    team = Team.objects.create(name="coders")
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    page = client.post(
        reverse("admin:accounts_team_changelist"),
        {"action": "invite", "_selected_action": [team.pk], "count": "1", "expires": "7d", "apply": "1"},
        HTTP_HOST="evil.example",
        follow=True,
    )
    listed = client.get(reverse("admin:accounts_invitation_changelist"), HTTP_HOST="evil.example")

    for content in (page.content, listed.content):
        assert b"https://stance.example.org/annotate/join/" in content
        assert b"evil.example" not in content
