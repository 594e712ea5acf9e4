"""verify_release names every problem: changed, missing or extra files, bad lines, a bad manifest."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Job
from export.models import Release
from export.services import build_release
from export.verify import verify_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def copy(simulated_job: Job, releases_dir: Path, tmp_path: Path) -> Path:
    """A writable copy of a fresh release, to damage."""
    release: Release = build_release("0.1")
    target = tmp_path / "copy"
    shutil.copytree(release.path, target)
    for path in target.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def messages(directory: Path) -> list[str]:
    return [str(problem) for problem in verify_release(directory)]


def test_an_untouched_release_verifies(copy: Path) -> None:
    assert messages(copy) == []


def test_a_changed_file_is_named_with_its_size(copy: Path) -> None:
    path = copy / "datasheet.md"
    path.write_bytes(path.read_bytes() + b"tampered\n")
    found = messages(copy)
    assert len(found) == 1 and found[0].startswith("datasheet.md: ") and "bytes, manifest says" in found[0]


def test_a_same_size_change_is_caught_by_its_sha256(copy: Path) -> None:
    path = copy / "topic.json"
    data = path.read_bytes()
    path.write_bytes(data.replace(b"law", b"lAw", 1))
    assert [m for m in messages(copy) if m.startswith("topic.json: sha256")]


def test_missing_and_unlisted_files_are_named(copy: Path) -> None:
    (copy / "jsonl" / "perspectives.jsonl").unlink()
    (copy / "notes.txt").write_text("extra")
    assert messages(copy) == [
        "jsonl/perspectives.jsonl: listed in the manifest but missing",
        "notes.txt: present but not listed in the manifest",
    ]


def test_a_jsonl_line_that_breaks_its_schema_is_named_by_line(copy: Path) -> None:
    path = copy / "jsonl" / "annotations.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    record["worker"] = "raw-worker-id"
    lines[1] = (json.dumps(record) + "\n").encode()
    path.write_bytes(b"".join(lines))
    found = messages(copy)
    assert any(m.startswith("jsonl/annotations.jsonl: ") and "manifest says" in m for m in found)
    assert any(
        m.startswith("jsonl/annotations.jsonl: line 2, worker: 'raw-worker-id' does not match") for m in found
    )


def test_a_broken_perspectrum_file_is_named_with_its_record(copy: Path) -> None:
    path = copy / "perspectrum_with_answers_v0.1.json"
    claims = json.loads(path.read_bytes())
    claims[0]["perspectives"][0]["stance_label_3"] = "MAYBE"
    path.write_bytes(json.dumps(claims).encode())
    found = messages(copy)
    assert any(m.startswith("perspectrum_with_answers_v0.1.json: record 0") and "MAYBE" in m for m in found)


def test_a_missing_or_invalid_manifest_is_reported(copy: Path) -> None:
    manifest = json.loads((copy / "manifest.json").read_bytes())
    del manifest["code_version"]
    manifest["files"][0]["sha256"] = "not-a-hash"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    found = messages(copy)
    assert "manifest.json: top level: 'code_version' is a required property" in found
    assert any(m.startswith("manifest.json: files/0/sha256:") for m in found)
    (copy / "manifest.json").unlink()
    assert messages(copy) == [f"manifest.json: missing from {copy}"]


def test_the_command_lists_each_problem_and_fails(copy: Path) -> None:
    (copy / "notes.txt").write_text("extra")
    errors = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_release", str(copy), stdout=StringIO(), stderr=errors)
    assert "notes.txt: present but not listed in the manifest" in errors.getvalue()


def test_the_command_passes_a_good_release(copy: Path) -> None:
    out = StringIO()
    call_command("verify_release", str(copy), stdout=out)
    assert "verified" in out.getvalue()


def test_the_original_perspectrum_release_has_no_manifest(perspectrum_dir: Path) -> None:
    assert messages(perspectrum_dir) == [f"manifest.json: missing from {perspectrum_dir}"]
