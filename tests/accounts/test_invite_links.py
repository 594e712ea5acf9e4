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
