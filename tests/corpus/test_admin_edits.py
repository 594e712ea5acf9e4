"""An edit in the corpus admin is a person's: stamped with who and when, provenance shown, never edited."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from corpus.models import ImportedRelease, Perspective, WrittenBy

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("editor", "editor@example.org", "pw-for-tests-only"))
    return client


def test_editing_a_perspective_stamps_the_person_and_ignores_posted_provenance(staff: Client) -> None:
    perspective = Perspective.objects.create(pid=5, text="Old words", source="idebate")

    response = staff.post(
        f"/admin/corpus/perspective/{perspective.pk}/change/",
        {"pid": 5, "text": "New words", "origin": "crawled", "source": "idebate", "source_url": "",
         "quality_flag": "", "paraphrase_of": "", "written_by": "import", "release_digest": "x"},
    )  # fmt: skip

    assert response.status_code == 302
    perspective.refresh_from_db()
    assert (perspective.text, perspective.written_by) == ("New words", WrittenBy.PERSON)
    assert (
        perspective.written_ref == "admin edit by editor" and perspective.written_by_user.username == "editor"
    )
    assert perspective.written_at is not None and perspective.release_digest == ""


def test_the_change_page_shows_who_wrote_the_row(staff: Client) -> None:
    perspective = Perspective.objects.create(
        pid=5, text="Words", source="idebate", written_ref="PERSPECTRUM v1.0"
    )

    page = staff.get(f"/admin/corpus/perspective/{perspective.pk}/change/").content.decode()

    assert "PERSPECTRUM v1.0" in page and 'name="written_by"' not in page


def test_imported_releases_are_listed_and_read_only(staff: Client) -> None:
    ImportedRelease.objects.create(version="1.0", checksum="ab" * 32, report={})

    assert b"abababab" in staff.get("/admin/corpus/importedrelease/").content
    assert staff.get("/admin/corpus/importedrelease/add/").status_code == 403
