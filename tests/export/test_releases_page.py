"""The releases page: list, files and zip to download, and a diff of two releases."""

from __future__ import annotations

import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from corpus.models import Claim, PerspectiveCluster, Stance3, Stance5, Status
from export.models import Release
from export.services import build_release, diff_releases
from tests.annotation.factories import ClaimFactory, make_cluster

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    editor = User.objects.create_user("editor", password="x-unused-0", is_staff=True)
    editor.user_permissions.add(Permission.objects.get(codename="view_release"))
    client.force_login(editor)
    return client


@pytest.fixture
def two_releases(small_corpus: list[Claim], releases_dir: Path) -> tuple[Release, Release]:
    """1.0, then: one cluster relabelled, one rejected, one claim with a new cluster added → 1.1."""
    first = build_release("1.0")
    relabelled = PerspectiveCluster.objects.get(claim=small_corpus[0], position=0)
    relabelled.stance_3, relabelled.stance_5 = Stance3.UNDERMINE, Stance5.MILDLY_UNDERMINE
    relabelled.save()
    rejected = PerspectiveCluster.objects.get(claim=small_corpus[1], position=1)
    rejected.status = Status.REJECTED
    rejected.save()
    make_cluster(ClaimFactory.create(), 0, Stance5.SUPPORT, Status.KEPT)
    return first, build_release("1.1")


def test_the_diff_names_added_removed_and_relabelled_claims_and_perspectives(
    small_corpus: list[Claim], two_releases: tuple[Release, Release]
) -> None:
    changes = diff_releases(*two_releases)

    new_claim = Claim.objects.order_by("-cid").first()
    assert new_claim is not None
    assert changes.claims_added == [new_claim.cid]
    new_pid = new_claim.clusters.get().members.get().perspective.pid
    assert changes.perspectives_added == [new_pid]
    assert changes.pairs_added == [(new_claim.cid, new_pid)]
    rejected_pid = (
        PerspectiveCluster.objects.get(claim=small_corpus[1], position=1).members.get().perspective.pid
    )
    assert changes.pairs_removed == [(small_corpus[1].cid, rejected_pid)]
    assert changes.perspectives_removed == []  # the perspective stays in the pool
    [relabel] = changes.relabelled
    assert relabel.claim_id == small_corpus[0].cid
    assert relabel.before == ("SUPPORT", "SUPPORT") and relabel.after == ("UNDERMINE", "MILDLY_UNDERMINE")


def test_the_diff_page_shows_the_changes(staff: Client, two_releases: tuple[Release, Release]) -> None:
    response = staff.get("/releases/diff/", {"a": "1.0", "b": "1.1"})
    assert response.status_code == 200
    text = response.content.decode()
    assert "Relabelled" in text and "MILDLY_UNDERMINE" in text and "Claims added" in text


def test_the_list_links_every_release(staff: Client, two_releases: tuple[Release, Release]) -> None:
    text = staff.get("/releases/").content.decode()
    assert 'href="/releases/1.0/"' in text and 'href="/releases/1.1/"' in text
    assert "Compare two releases" in text


def test_the_list_links_each_release_to_its_changes_since_the_one_before(
    staff: Client, two_releases: tuple[Release, Release]
) -> None:
    text = staff.get("/releases/").content.decode()
    assert 'href="/releases/diff/?a=1.0&amp;b=1.1">since 1.0</a>' in text
    assert text.count('href="/releases/diff/') == 1  # the first release has nothing before it


def test_the_release_page_lists_its_files_with_hashes(
    staff: Client, two_releases: tuple[Release, Release]
) -> None:
    release = two_releases[0]
    text = staff.get("/releases/1.0/").content.decode()
    for entry in release.files:
        assert entry["sha256"] in text
    assert "Datasheet" in text


def test_a_listed_file_downloads_byte_for_byte(staff: Client, two_releases: tuple[Release, Release]) -> None:
    release = two_releases[0]
    response = staff.get("/releases/1.0/files/jsonl/perspectives.jsonl")
    assert response.status_code == 200
    assert response.getvalue() == (release.path / "jsonl" / "perspectives.jsonl").read_bytes()
    assert "attachment" in response["Content-Disposition"]


@pytest.mark.parametrize("name", ["../1.1/topic.json", "nothing.json", "%2e%2e/%2e%2e/etc/passwd"])
def test_only_listed_files_are_served(
    staff: Client, two_releases: tuple[Release, Release], name: str
) -> None:
    assert staff.get(f"/releases/1.0/files/{name}").status_code == 404


def test_the_zip_downloads(staff: Client, two_releases: tuple[Release, Release]) -> None:
    response = staff.get("/releases/1.1/zip")
    archive = zipfile.ZipFile(BytesIO(response.getvalue()))
    assert "stancework-1.1/manifest.json" in archive.namelist()


def test_the_pages_need_a_staff_login(client: Client, two_releases: tuple[Release, Release]) -> None:
    for url in (
        "/releases/",
        "/releases/1.0/",
        "/releases/1.0/zip",
        "/releases/1.0/files/topic.json",
        "/releases/diff/?a=1.0&b=1.1",
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url


def test_an_unknown_release_is_not_found(staff: Client, releases_dir: Path) -> None:
    assert staff.get("/releases/9.9/").status_code == 404
    assert staff.get("/releases/diff/", {"a": "9.8", "b": "9.9"}).status_code == 404


def test_the_admin_shows_releases_read_only(staff: Client, two_releases: tuple[Release, Release]) -> None:
    User.objects.filter(username="editor").update(is_superuser=True)
    listing = staff.get("/admin/export/release/")
    assert listing.status_code == 200 and "1.1" in listing.content.decode()
    page = staff.get(f"/admin/export/release/{two_releases[0].pk}/change/").content.decode()
    assert two_releases[0].pseudonym_key not in page
    assert staff.get("/admin/export/release/add/").status_code == 403


def test_the_release_page_renders_the_datasheet_as_html(
    staff: Client, two_releases: tuple[Release, Release]
) -> None:
    text = staff.get("/releases/1.0/").content.decode()
    assert "<h1>" in text or "<h2>" in text
    assert "<table>" in text and "<th>" in text  # the statistics tables are tables, not pipes
    assert "<pre" not in text.split("Datasheet", 1)[1]


def test_the_datasheet_is_sanitised(staff: Client, two_releases: tuple[Release, Release]) -> None:
    sheet = two_releases[0].path / "datasheet.md"
    sheet.write_text(
        "# Sheet\n\n<script>alert(1)</script>\n\n[click](javascript:alert(2))\n\n"
        '<img src=x onerror="alert(3)">\n\n| a | b |\n|---|---|\n| 1 | 2 |\n'
    )
    text = staff.get("/releases/1.0/").content.decode().split("Datasheet", 1)[1]
    assert "<script>alert" not in text and 'href="javascript:' not in text and "<img" not in text
    assert "&lt;script&gt;alert(1)" in text  # shown as text, not dropped
    assert "<h1>Sheet</h1>" in text and "<td>1</td>" in text


def test_the_diff_page_counts_changes_per_file(staff: Client, two_releases: tuple[Release, Release]) -> None:
    text = staff.get("/releases/diff/", {"a": "1.0", "b": "1.1"}).content.decode()
    before, after = (
        {f["name"].replace(f"_v{r.version}.", "_v."): (f["name"], f["sha256"]) for f in r.files}
        for r in two_releases
    )
    changed = sorted(before[kind][0] for kind in before if before[kind][1] != after[kind][1])
    same = sorted(before[kind][0] for kind in before if before[kind][1] == after[kind][1])
    assert changed and "perspectrum_with_answers_v1.0.json" in changed and same
    for name in changed:  # each file by its name on disk in either release, never "…_v{version}.json"
        assert f'<tr class="file-changed"><td>{name}</td><td>{name.replace("_v1.0.", "_v1.1.")}</td>' in text
    for name in same:
        assert f'<tr class="file-same"><td>{name}</td><td>{name.replace("_v1.0.", "_v1.1.")}</td>' in text
    assert "{version}" not in text
    assert "<td>Claims that changed split</td>" in text and "split_moves" not in text


def test_the_list_with_no_release_yet_says_so_instead_of_a_500(staff: Client) -> None:
    response = staff.get("/releases/")

    assert response.status_code == 200
    assert not Release.objects.exists()
    assert "<p>No release yet.</p>" in response.content.decode()
