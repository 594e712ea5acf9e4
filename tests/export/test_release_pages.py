"""Releases from the page: build one (a background operation whose stages the page shows), preview each
file (its first records and how many) without downloading it; each behind its permission."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from corpus.models import Claim
from export.models import Release
from export.services import build_release
from operations.models import Operation, OperationState

pytestmark = pytest.mark.django_db
PASSWORD = "x-unused-0"


def member_of(*roles: str) -> User:
    person = User.objects.create_user("person", password=PASSWORD, is_staff=True)
    person.groups.set(Group.objects.filter(name__in=roles))
    return person


def test_a_researcher_builds_a_release_and_the_page_shows_its_stages(
    client: Client, small_corpus: list[Claim], releases_dir: Path, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(member_of("researcher"))

    with django_capture_on_commit_callbacks(execute=True):
        started = client.post("/releases/build/", {"version": "1.0", "notes": "my first corpus"})
    page = client.get("/releases/").content.decode()

    release = Release.objects.get()
    build = Operation.objects.get()
    assert started.status_code == 302 and started["Location"] == "/releases/"
    assert (release.version, release.notes) == ("1.0", "my first corpus")
    assert build.state == OperationState.DONE and build.done >= 3  # a step per stage, then the summary
    assert "build release 1.0" in page and 'href="/releases/1.0/"' in page
    assert "zip and hash the files" in page


def test_a_version_that_exists_is_refused_on_the_form_and_nothing_starts(
    client: Client, small_corpus: list[Claim], releases_dir: Path
) -> None:
    build_release("1.0")
    client.force_login(member_of("researcher"))

    page = client.post("/releases/build/", {"version": "1.0"})

    assert page.status_code == 200 and "releases are never rebuilt" in page.content.decode()
    assert not Operation.objects.exists()


def test_building_needs_its_permission(client: Client, small_corpus: list[Claim], releases_dir: Path) -> None:
    client.force_login(member_of("approver"))

    assert client.post("/releases/build/", {"version": "1.0"}).status_code == 403
    assert not Operation.objects.exists()


def test_each_file_previews_its_first_records_and_their_count(
    client: Client, small_corpus: list[Claim], releases_dir: Path
) -> None:
    release = build_release("1.0")
    client.force_login(member_of("researcher"))
    pool = next(name for name in release.file_names() if name.startswith("perspective_pool"))
    records = json.loads((release.path / pool).read_text())

    listing = client.get("/releases/1.0/").content.decode()
    page = client.get(f"/releases/1.0/preview/{pool}").content.decode()

    assert f'href="/releases/1.0/preview/{pool}"' in listing
    assert len(records) > 0 and f"{len(records)} record" in page
    assert json.dumps(records[0]["text"], ensure_ascii=False)[1:-1][:30] in page
    assert client.get("/releases/1.0/preview/../../etc/passwd").status_code == 404
