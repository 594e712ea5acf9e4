"""Building a release from a simulated pipeline run: complete, verifiable, reproducible, immutable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.models import Job, Worker
from annotation.work.jobs import create_job
from corpus.models import Claim
from export import provenance
from export.archive import write_zip
from export.claim_splits import stored_split_report
from export.models import Release, ReleaseImmutableError
from export.services import (
    ReleaseExistsError,
    ReleaseVersionError,
    build_release,
    write_release_files,
)
from export.splits import SplitPlan
from export.verify import verify_release

pytestmark = pytest.mark.django_db


def all_bytes(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def test_a_release_of_a_simulated_run_verifies_against_its_manifest_and_schemas(
    simulated_job: Job, releases_dir: Path
) -> None:
    release = build_release("0.1", split_plan=SplitPlan(seed=1))

    assert verify_release(release.path) == []
    names = set(release.file_names())
    assert {"manifest.json", "datasheet.md", "topic.json", "perspectrum_with_answers_v0.1.json"} <= names
    assert {"jsonl/annotations.jsonl", "jsonl/perspectives.jsonl", "schemas/manifest.schema.json"} <= names
    manifest = json.loads((release.path / "manifest.json").read_bytes())
    assert manifest["job_ids"] == [simulated_job.pk]
    assert manifest["simulated"] is True
    assert manifest["code_version"] == "test-code-version"
    listed = {entry["name"]: entry for entry in manifest["files"]}
    assert listed["topic.json"]["bytes"] == (release.path / "topic.json").stat().st_size
    job = manifest["jobs"][0]
    assert job["responses"] == Job.objects.get().responses.count() > 0
    assert job["agreement"]["fleiss_kappa"] is not None
    assert set(manifest["agreement"]["library_versions"]) >= {"numpy", "krippendorff"}
    assert "SIMULATED" in (release.path / "datasheet.md").read_text()


def test_a_release_lists_only_jobs_that_contributed_and_pays_from_the_ledger(
    simulated_job: Job, releases_dir: Path
) -> None:
    idle = create_job("stance", {"claims": [Claim.objects.order_by("cid").last().cid]})

    release = build_release("0.1")

    assert idle.pk not in release.manifest["job_ids"] == [simulated_job.pk]
    datasheet = (release.path / "datasheet.md").read_text()
    assert "## Pay\n\nSimulated crowd: nothing was paid through a market.\n" in datasheet
    assert release.manifest["datasheet"]["pay"]["through_market"] == {}


def test_two_builds_of_the_same_state_are_byte_identical(simulated_job: Job, tmp_path: Path) -> None:
    key = provenance.release_key("0.1")
    split = stored_split_report()
    write_release_files("0.1", tmp_path / "a", key, "code", split)
    write_release_files("0.1", tmp_path / "b", key, "code", split)
    first, second = all_bytes(tmp_path / "a"), all_bytes(tmp_path / "b")
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []
    state = json.loads(first["manifest.json"])["state_time"]
    write_zip(tmp_path / "a", tmp_path / "a.zip", "r", state)
    write_zip(tmp_path / "b", tmp_path / "b.zip", "r", state)
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_worker_ids_leave_only_as_pseudonyms_and_the_key_stays_out(
    simulated_job: Job, releases_dir: Path
) -> None:
    release = build_release("0.1")

    contents = b"".join(all_bytes(release.path).values())
    for external_id in Worker.objects.values_list("external_id", flat=True):
        assert external_id.encode() not in contents
    assert release.pseudonym_key.encode() not in contents
    assert bytes.fromhex(release.pseudonym_key) not in contents
    lines = (release.path / "jsonl" / "annotations.jsonl").read_text().splitlines()
    workers = {json.loads(line)["worker"] for line in lines}
    assert len(workers) > 1 and all(w.startswith("w_") for w in workers)


def test_pseudonyms_differ_between_releases(simulated_job: Job, releases_dir: Path) -> None:
    def workers(release: Release) -> set[str]:
        lines = (release.path / "jsonl" / "annotations.jsonl").read_text().splitlines()
        return {json.loads(line)["worker"] for line in lines}

    assert workers(build_release("0.1")).isdisjoint(workers(build_release("0.2")))


def test_building_an_existing_version_is_refused(small_corpus: list[Claim], releases_dir: Path) -> None:
    build_release("1.0")
    with pytest.raises(ReleaseExistsError):
        build_release("1.0")
    (releases_dir / "2.0").mkdir()
    with pytest.raises(ReleaseExistsError):
        build_release("2.0")
    assert list(Release.objects.values_list("version", flat=True)) == ["1.0"]


@pytest.mark.parametrize("version", ["", "../up", "a/b", ".hidden", "x" * 65])
def test_a_version_that_cannot_name_files_is_refused(releases_dir: Path, version: str) -> None:
    with pytest.raises(ReleaseVersionError):
        build_release(version)


def test_a_version_named_like_a_releases_page_is_refused(releases_dir: Path) -> None:
    with pytest.raises(ReleaseVersionError, match="reserved by the releases page"):
        build_release("diff")


def test_a_release_record_and_its_files_cannot_be_changed(
    small_corpus: list[Claim], releases_dir: Path
) -> None:
    release = build_release("1.0")
    release.notes = "changed"
    with pytest.raises(ReleaseImmutableError):
        release.save()
    assert all(not (path.stat().st_mode & 0o222) for path in release.path.rglob("*") if path.is_file())


def test_a_seeded_split_is_stored_on_the_claims_and_rerunning_it_changes_nothing(
    small_corpus: list[Claim], releases_dir: Path
) -> None:
    first = build_release("1.0", split_plan=SplitPlan(seed=4))
    stored = dict(Claim.objects.values_list("cid", "split"))
    second = build_release("1.1", split_plan=SplitPlan(seed=4))

    assert dict(Claim.objects.values_list("cid", "split")) == stored
    assert first.manifest["state_time"] == second.manifest["state_time"]
    counts = first.manifest["split"]["counts"]
    assert counts["train"] == 6 and counts["dev"] + counts["test"] == 4
    assert first.manifest["split"]["leakage"]["primary_topics_straddling"] == []
    split_file = json.loads((first.path / "dataset_split_v1.0.json").read_bytes())
    assert split_file == {str(cid): split for cid, split in stored.items()}


def test_the_zip_holds_every_file_and_matches_its_recorded_hash(
    small_corpus: list[Claim], releases_dir: Path
) -> None:
    import hashlib
    import zipfile

    release = build_release("1.0")
    assert hashlib.sha256(release.zip_path.read_bytes()).hexdigest() == release.zip_sha256
    with zipfile.ZipFile(release.zip_path) as archive:
        names = sorted(name.split("/", 1)[1] for name in archive.namelist())
    assert names == sorted(release.file_names())


def test_aggregation_runs_worker_quality_and_the_adjudicated_sample_reach_the_manifest(
    simulated_job: Job, releases_dir: Path
) -> None:
    from django.contrib.auth.models import User

    from aggregation.adjudication import adjudicate, draw_sample
    from aggregation.models import ItemOutcome
    from aggregation.services import aggregate_job

    aggregate_job(simulated_job.pk)
    draw_sample(simulated_job.pk, 2)
    expert = User.objects.create_user("expert")
    for outcome in ItemOutcome.objects.filter(job=simulated_job, sampled=True):
        adjudicate(outcome.pk, "SUPPORT", user=expert)

    release = build_release("0.1")

    assert verify_release(release.path) == []
    agreement = release.manifest["agreement"]

    [run] = agreement["aggregation_runs"]
    assert run["job_id"] == simulated_job.pk and run["items"] > 0 and run["versions"]
    [sample] = agreement["adjudication_samples"]
    assert (sample["job_id"], sample["sampled"], sample["adjudicated"]) == (simulated_job.pk, 2, 2)
    workers = {row["worker"] for row in agreement["label_models"]}
    assert workers and all(worker.startswith("w_") for worker in workers)
