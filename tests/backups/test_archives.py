"""The releases archive: every file back where it was, and nothing written outside the target."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from backups.archives import archive_directory, extract_archive
from backups.errors import BackupCorruptError


def files_under(root: Path) -> dict[Path, bytes]:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_directory_tree_comes_back_byte_for_byte(tmp_path: Path) -> None:
    source = tmp_path / "releases"
    (source / "1.0" / "jsonl").mkdir(parents=True)
    (source / "1.0" / "manifest.json").write_text('{"version": "1.0"}')
    (source / "1.0" / "jsonl" / "claims.jsonl").write_bytes(b'{"id": 1}\n' * 100)
    (source / "1.0.zip").write_bytes(b"PK\x03\x04")

    count = archive_directory(source, tmp_path / "releases.tar.gz")
    extract_archive(tmp_path / "releases.tar.gz", tmp_path / "restored")

    assert count == 3
    assert files_under(tmp_path / "restored") == files_under(source)


def test_a_platform_without_releases_backs_up_an_empty_archive(tmp_path: Path) -> None:
    assert archive_directory(tmp_path / "never-made", tmp_path / "releases.tar.gz") == 0
    extract_archive(tmp_path / "releases.tar.gz", tmp_path / "restored")
    assert list((tmp_path / "restored").iterdir()) == []


def test_an_archive_member_leading_out_of_the_target_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        member = tarfile.TarInfo("../escaped.txt")
        member.size = 3
        tar.addfile(member, io.BytesIO(b"bad"))

    with pytest.raises(BackupCorruptError, match="cannot be unpacked"):
        extract_archive(archive, tmp_path / "restored")
    assert not (tmp_path / "escaped.txt").exists()


def test_a_truncated_archive_is_reported_as_corrupt(tmp_path: Path) -> None:
    archive_directory(tmp_path, tmp_path.parent / f"{tmp_path.name}.tar.gz")
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes((tmp_path.parent / f"{tmp_path.name}.tar.gz").read_bytes()[:20])

    with pytest.raises(BackupCorruptError):
        extract_archive(truncated, tmp_path / "restored")
