"""`export_release` of a released version gives its stored files, byte-identical and checked against its
manifest, or refuses; only a version not yet released is written from the database as it stands."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Job
from corpus.models import PerspectiveCluster, Status
from corpus.perspectrum import CLAIMS, file_names
from export.services import build_release
from tests.config.test_whole_files import disk_full_after

pytestmark = pytest.mark.django_db


def export(version: str, out: Path) -> str:
    said = StringIO()
    call_command("export_release", "--version", version, "--out", str(out), stdout=said)
    return said.getvalue()


def test_exporting_a_released_version_writes_its_stored_files_byte_identical_after_the_database_changed(
    simulated_job: Job, releases_dir: Path, tmp_path: Path
) -> None:
    release = build_release("0.1")
    PerspectiveCluster.objects.filter(status__in=Status.released()).update(status=Status.REJECTED)

    said = export("0.1", tmp_path / "out")

    names = sorted(file_names("0.1").values())
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == names
    for name in names:
        assert (tmp_path / "out" / name).read_bytes() == (release.path / name).read_bytes(), name
    assert "Release 0.1 exists: copied its 5 stored PERSPECTRUM files" in said


def test_a_released_version_whose_stored_file_changed_is_refused_and_nothing_is_written(
    simulated_job: Job, releases_dir: Path, tmp_path: Path
) -> None:
    release = build_release("0.1")
    stored = release.path / file_names("0.1")[CLAIMS]
    stored.chmod(0o644)
    stored.write_bytes(stored.read_bytes().replace(b"SUPPORT", b"UNDERMINE", 1))

    with pytest.raises(CommandError, match="differs from its manifest"):
        export("0.1", tmp_path / "out")

    assert not (tmp_path / "out").exists()


def test_a_version_not_yet_released_is_the_database_now_and_says_so(
    simulated_job: Job, releases_dir: Path, tmp_path: Path
) -> None:
    said = export("0.2", tmp_path / "out")

    assert "Version 0.2 is not released: wrote the database as it stands now" in said
    assert (tmp_path / "out" / file_names("0.2")[CLAIMS]).is_file()


def test_a_version_name_that_cannot_name_files_is_refused_in_a_sentence(
    releases_dir: Path, tmp_path: Path
) -> None:
    with pytest.raises(CommandError, match="use letters, digits"):
        export("../x", tmp_path / "out")


def test_a_full_disk_leaves_the_previous_export_whole_and_says_so(
    simulated_job: Job, releases_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    previous = out / file_names("0.2")[CLAIMS]
    previous.write_text("the previous export\n")

    with (
        pytest.raises(CommandError, match="File too large; the previous file is intact"),
        disk_full_after(16),
    ):
        export("0.2", out)

    assert previous.read_text() == "the previous export\n"
    assert [path.name for path in out.iterdir()] == [previous.name]  # no partial file left
