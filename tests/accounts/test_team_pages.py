"""Teams and invitations from the browser: create a team, invite people, copy each link (on the address
the platform is reached at), see who joined, revoke a link nobody used; each behind its permission."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from accounts.invitations import accept, open_invitation, token
from accounts.models import Invitation, Team

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-9"


def researcher() -> User:
    person = User.objects.create_user("lead", password=PASSWORD, is_staff=True)
    person.groups.set(Group.objects.filter(name="researcher"))
    return person


def test_a_researcher_creates_a_team_and_invites_two_people_on_the_public_url(
    client: Client, settings
) -> None:
    settings.PUBLIC_URL = "http://127.0.0.1:18123"
    client.force_login(researcher())

    created = client.post("/teams/", {"name": "course"})
    team = Team.objects.get()
    invited = client.post(f"/teams/{team.pk}/", {"count": "2", "expires": "3d"})
    page = client.get(f"/teams/{team.pk}/").content.decode()

    assert created["Location"] == f"/teams/{team.pk}/" and invited.status_code == 302
    made = {invitation.pk for invitation in Invitation.objects.filter(team=team)}
    shown = set(re.findall(r'data-link="http://127\.0\.0\.1:18123/annotate/join/([^/"]+)/"', page))
    assert len(made) == 2
    assert {open_invitation(value).pk for value in shown} == made


def test_the_page_shows_who_joined_and_a_revoked_link_no_longer_works(client: Client) -> None:
    client.force_login(researcher())
    team = Team.objects.create(name="course")
    client.post(f"/teams/{team.pk}/", {"count": "2", "expires": "7d"})
    used, unused = Invitation.objects.order_by("pk")
    accept(token(used), "ann1", PASSWORD)

    revoked = client.post(f"/teams/invitations/{unused.pk}/revoke/")
    page = client.get(f"/teams/{team.pk}/").content.decode()

    assert revoked.status_code == 302
    assert "ann1" in page
    assert "expired" in client.get(f"/annotate/join/{token(unused)}/").content.decode()


def test_a_bad_expiry_is_refused_on_the_form_and_makes_nothing(client: Client) -> None:
    client.force_login(researcher())
    team = Team.objects.create(name="course")

    page = client.post(f"/teams/{team.pk}/", {"count": "2", "expires": "soon"})

    assert page.status_code == 200 and "give days or hours" in page.content.decode()
    assert not Invitation.objects.exists()


def test_staff_without_the_permission_get_403_and_nothing_is_made(client: Client) -> None:
    client.force_login(User.objects.create_user("staff", password=PASSWORD, is_staff=True))
    team = Team.objects.create(name="course")

    assert client.get("/teams/").status_code == 403
    assert client.post(f"/teams/{team.pk}/", {"count": "1", "expires": "7d"}).status_code == 403
    assert not Invitation.objects.exists()
