"""An edit in the corpus admin is a person's: stamped with who and when, provenance shown, never edited."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from corpus.models import ClusterEvidence, Evidence, ImportedRelease, Perspective, Removal, WrittenBy
from tests.annotation.factories import make_corpus

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


def test_a_link_deleted_on_the_cluster_page_is_remembered_as_removed_by_the_person(staff: Client) -> None:
    (claim,) = make_corpus(claims=1, perspectives=1)
    cluster = claim.clusters.get()
    member = cluster.members.get()
    link = ClusterEvidence.objects.create(
        cluster=cluster, evidence=Evidence.objects.create(eid=3, text="a paragraph"), position=0
    )
    form = {
        "claim": claim.pk, "position": 0, "stance_3": "", "stance_5": "", "voter_counts": "[]",
        "agreement": "", "status": "candidate", "source_side": "", "rule": "",
        "members-TOTAL_FORMS": 1, "members-INITIAL_FORMS": 1, "members-0-id": member.pk,
        "members-0-cluster": cluster.pk, "members-0-perspective": member.perspective_id,
        "members-0-position": 0,
        "evidence_links-TOTAL_FORMS": 1, "evidence_links-INITIAL_FORMS": 1, "evidence_links-0-id": link.pk,
        "evidence_links-0-cluster": cluster.pk, "evidence_links-0-evidence": link.evidence_id,
        "evidence_links-0-position": 0, "evidence_links-0-DELETE": "on",
    }  # fmt: skip

    response = staff.post(f"/admin/corpus/perspectivecluster/{cluster.pk}/change/", form)

    assert response.status_code == 302, response.content.decode()[:3000]
    removal = Removal.objects.get()
    assert (removal.cluster_id, removal.evidence_id, removal.written_ref) == (
        cluster.pk,
        link.evidence_id,
        "admin edit by editor",
    )
    assert "e3" in staff.get("/admin/corpus/removal/").content.decode()
