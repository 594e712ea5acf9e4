"""Who sees a job's items: staff who may view jobs, and the job's team once the job is published.

Every worker page is asked by every kind of visitor who may not see the items, with and without
`?preview=1`: none of them shows an item.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from accounts.models import Team
from annotation.models import Job, Worker
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

ITEM = b"should be debated"  # every claim the factory makes says so


def _client(name: str, *perms: str, team: Team | None = None) -> Client:
    user = User.objects.create_user(name, password="pw-for-tests-1")
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    if team is not None:
        team.members.add(user)
    client = Client()
    client.force_login(user)
    return client


def _team_job(published: bool, market: str = "inhouse") -> Job:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market=market)
    job.teams.add(Team.objects.create(name="ling-101"))
    return publish_job(job.pk) if published else job


def _pages(client: Client, job: Job) -> list[bytes]:
    """Every worker page of the job as this visitor reads it, with and without ?preview=1."""
    read = []
    for query in ("", "?preview=1"):
        for name in ("job", "quiz"):
            read.append(client.get(reverse(f"annotation:{name}", args=[job.pk]) + query).content)
        started = client.post(reverse("annotation:start", args=[job.pk]) + query)
        if started.status_code == 302:
            read.append(client.get(started["Location"]).content)
        read.append(started.content)
    return read


OUTSIDERS: dict[str, Callable[[Team], Client]] = {
    "logged out": lambda team: Client(),
    "annotator of another team": lambda team: _client("other", team=Team.objects.create(name="other")),
    "staff without view_job": lambda team: _client("clerk", "view_claim"),
}


@pytest.mark.parametrize("published", [False, True])
@pytest.mark.parametrize("who", list(OUTSIDERS))
def test_no_worker_page_shows_an_item_to_someone_outside_the_job(who: str, published: bool) -> None:
    job = _team_job(published)
    pages = _pages(OUTSIDERS[who](job.teams.get()), job)

    assert len(pages) >= 6
    assert not [page for page in pages if ITEM in page]


def test_a_draft_is_not_previewed_by_its_own_team() -> None:
    job = _team_job(published=False)
    member = _client("member", team=job.teams.get())

    pages = _pages(member, job)

    assert pages and not [page for page in pages if ITEM in page]


def test_the_team_previews_a_published_job() -> None:
    job = _team_job(published=True)
    member = _client("member", team=job.teams.get())

    page = member.get(reverse("annotation:job", args=[job.pk]) + "?preview=1")

    assert page.status_code == 200 and ITEM in page.content


@pytest.mark.parametrize("market", ["inhouse", "mturk"])
@pytest.mark.parametrize("published", [False, True])
def test_staff_who_may_view_jobs_preview_any_job(published: bool, market: str) -> None:
    job = _team_job(published=published and market == "inhouse", market=market)
    staff = _client("researcher", "view_job")

    page = staff.get(reverse("annotation:job", args=[job.pk]) + "?preview=1")

    assert page.status_code == 200 and ITEM in page.content
    assert not Worker.objects.exists()
