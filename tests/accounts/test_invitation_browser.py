"""Done-when: in real Chromium, a person opens an invitation, sets a password, takes the quiz, does a
HIT, sees it on "my work" and logs out."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User

from accounts.invitations import create_invitations, token
from accounts.models import Team
from annotation.models import Assignment, Response
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus
from tests.annotation.test_browser import (  # noqa: F401  (page: the Chromium page fixture)
    answer_every_item_by_keyboard,
    page,
    take_the_quiz,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_from_an_invitation_to_a_hit_to_my_work_in_chromium(live_server: Any, page: Any) -> None:  # noqa: F811
    make_corpus(claims=4, perspectives=1)
    team = Team.objects.create(name="ling-101")
    job = create_job("stance", {}, market="inhouse", name="Pilot stance job")
    job.teams.set([team])
    publish_job(job.pk)
    (invitation,) = create_invitations(team, 1, timedelta(days=7))

    page.goto(f"{live_server.url}/annotate/join/{token(invitation)}/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password1]", "a-long-test-password")
    page.fill("input[name=password2]", "a-long-test-password")
    page.click("#join")
    page.click("text=Pilot stance job")  # the queue shows the team's job
    take_the_quiz(page, "stance")
    items = answer_every_item_by_keyboard(page)

    page.click("text=My work")
    assert "Pilot stance job" in page.text_content("main")
    assert f"{items} items done" in page.text_content("main")
    page.click("#logout")
    page.wait_for_url("**/annotate/login/")

    ada = User.objects.get(username="ada")
    assert list(ada.teams.all()) == [team] and not ada.is_staff
    assignment = Assignment.objects.get(worker__user=ada)
    assert assignment.state == "submitted" and Response.objects.filter(assignment=assignment).count() == items
    page.goto(f"{live_server.url}/annotate/join/{token(invitation)}/")
    assert "used already" in page.text_content("main")  # a link works once
