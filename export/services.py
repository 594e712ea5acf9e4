"""Export services: write the corpus as PERSPECTRUM release files."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from django.conf import settings

from accounts import audit
from accounts.models import AuditEvent
from annotation.ledger.payments import payments_of
from config.progress import QUIET, Progress
from config.whole_files import whole_file
from corpus.models import (
    Claim,
    ClaimTopic,
    Evidence,
    Perspective,
    PerspectiveCluster,
    Status,
)
from corpus.perspectrum import (
    CLAIMS,
    EVIDENCE,
    POOL,
    SPLIT,
    TOPIC,
    VOTER_ORDER,
    dumps,
    file_names,
)
from corpus.perspectrum import Release as PerspectrumRelease
from corpus.services import cluster_contents
from export import provenance
from export.archive import write_zip
from export.claim_splits import assign_claim_splits, stored_split_report
from export.datasheet import build_datasheet, count_workers, known_issues, render_markdown
from export.diff import ReleaseDiff, diff
from export.jsonl import dumps_lines, jsonl_files
from export.manifest import (
    MANIFEST,
    SCHEMAS,
    build_manifest,
    canonical_json,
    file_entries,
    release_paths,
    schema_files,
    sha256_of,
)
from export.models import Release
from export.splits import SplitPlan
from export.statistics import release_statistics

DATASHEET = "datasheet.md"
# How a release names its workers, as its manifest says.
PSEUDONYMS = {
    "scheme": "w_ + first 20 hex digits of HMAC-SHA256(key, market + 0x1F + worker id)",
    "key": "per release, derived from the platform's WORKER_PSEUDONYM_KEY; kept in the platform "
    "database (export.Release), never in the release",
}


def perspectrum_records(released: tuple[str, ...] = tuple(Status.released())) -> dict[str, Any]:
    """The five PERSPECTRUM files' content, from the database, each list ordered by id.

    Only clusters whose status is in `released` are written; a constant number of queries.
    """
    topics = _topics_by_claim()
    clusters = _clusters_by_claim(released)
    claims = [
        {
            "cId": cid,
            "text": text,
            "source": source,
            "perspectives": clusters.get(pk, []),
            "topics": topics.get(cid, []),
        }
        for pk, cid, text, source in Claim.objects.filter(text_missing=False)
        .order_by("cid")
        .values_list("pk", "cid", "text", "source")
    ]
    return {
        CLAIMS: claims,
        POOL: [
            {"pId": pid, "text": text, "source": source}
            for pid, text, source in Perspective.objects.order_by("pid").values_list("pid", "text", "source")
        ],
        EVIDENCE: [
            {"eId": eid, "text": text, "source": source}
            for eid, text, source in Evidence.objects.filter(text_missing=False)
            .order_by("eid")
            .values_list("eid", "text", "source")
        ],
        SPLIT: {
            str(cid): split
            for cid, split in Claim.objects.exclude(split="").order_by("cid").values_list("cid", "split")
        },
        TOPIC: [
            {"claim_id": cid, "topics": topics.get(cid, [])}
            for cid in Claim.objects.order_by("cid").values_list("cid", flat=True)
        ],
    }


def _topics_by_claim() -> dict[int, list[str]]:
    """Each claim's topic slugs in order, by claim id."""
    topics: dict[int, list[str]] = {}
    for cid, slug in ClaimTopic.objects.order_by("claim__cid", "position").values_list(
        "claim__cid", "topic__slug"
    ):
        topics.setdefault(cid, []).append(slug)
    return topics


def _clusters_by_claim(released: tuple[str, ...]) -> dict[int, list[dict[str, Any]]]:
    chosen = PerspectiveCluster.objects.filter(status__in=released)
    pids, eids = cluster_contents(chosen)
    by_claim: dict[int, list[dict[str, Any]]] = {}
    for pk, claim_pk, s3, s5, votes in chosen.order_by("claim_id", "position").values_list(
        "pk", "claim_id", "stance_3", "stance_5", "voter_counts"
    ):
        by_claim.setdefault(claim_pk, []).append(
            {
                "pids": pids.get(pk, []),
                "stance_label_3": s3,
                "stance_label_5": s5,
                # A cluster nobody voted on (kept by an expert, or not yet annotated) has zero
                # votes; the format's five slots are always there.
                "voter_counts": votes or [0] * len(VOTER_ORDER),
                "evidence": eids.get(pk, []),
            }
        )
    return by_claim


def export_perspectrum(version: str, out_dir: Path | str) -> dict[str, Path]:
    """Write the five PERSPECTRUM files for `version` into `out_dir`; returns kind → path."""
    return write_perspectrum(version, Path(out_dir), perspectrum_records())


def write_perspectrum(version: str, out: Path, records: dict[str, Any]) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for kind, name in file_names(version).items():
        written[kind] = out / name
        with whole_file(written[kind], "wb") as handle:
            handle.write(dumps(records[kind]))
    return written


# Releases ------------------------------------------------------------------------------------------


class ReleaseVersionError(ValueError):
    """A version string that cannot name a release directory and its files."""


class ReleaseExistsError(RuntimeError):
    """The version is already released (or its directory is taken): releases are never rebuilt."""


VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
RESERVED_VERSIONS = {"diff", "build"}  # names the releases page uses for itself (export/urls.py)


def write_release_files(
    version: str,
    directory: Path,
    key: bytes,
    code: str,
    split: dict[str, Any],
    *,
    machine_labels: bool = True,
) -> dict[str, Any]:
    """Write every file of a release into `directory` (empty or new); returns the manifest written.
    Without `machine_labels`, the machines' labels are left out, and the datasheet and manifest say so."""
    records = perspectrum_records()
    annotations = provenance.annotation_rows(key, machine_labels=machine_labels)
    _write_data_files(version, directory, records, annotations)
    statistics = release_statistics(records[CLAIMS], records[POOL], records[EVIDENCE], records[SPLIT])
    jobs = provenance.jobs_record(key)
    simulated = any(job["simulated"] for job in jobs) or any(row["simulated"] for row in annotations)
    sheet = _write_datasheet(
        version, directory, records, statistics, jobs, annotations, split, simulated, machine_labels
    )
    facts = {
        "version": version,
        "state_time": provenance.state_time(),
        "code_version": code,
        "split": split,
        "job_ids": [job["id"] for job in jobs],
        "jobs": jobs,
        "candidate_rankings": _candidate_rankings(jobs),
        "rules": provenance.rules_record(),
        "agreement": provenance.agreement_record(jobs, key),
        "statistics": statistics,
        "datasheet": sheet,
        "pseudonyms": dict(PSEUDONYMS),
        "simulated": simulated,
        "machine_labels": "included" if machine_labels else "left out",
        "labels_by_origin": dict(sorted(Counter(row["origin"] for row in annotations).items())),
    }
    manifest = build_manifest(directory, facts)
    (directory / MANIFEST).write_bytes(canonical_json(manifest))
    return manifest


def _write_datasheet(
    version: str,
    directory: Path,
    records: dict[str, Any],
    statistics: dict[str, Any],
    jobs: list[dict[str, Any]],
    annotations: list[dict[str, Any]],
    split: dict[str, Any],
    simulated: bool,
    machine_labels: bool,
) -> dict[str, Any]:
    """Write datasheet.md; the datasheet as the manifest keeps it. Its pay is the ledger's."""
    cited = {eid for claim in records[CLAIMS] for c in claim["perspectives"] for eid in c["evidence"]}
    missing = len(cited - {e["eId"] for e in records[EVIDENCE]})
    issues = known_issues(records[CLAIMS], records[POOL], missing, split, simulated)
    paid = payments_of(provenance.contributing_jobs())
    pay = {"sentence": paid.sentence(), **paid.as_dict()}
    sheet = build_datasheet(
        version,
        statistics,
        provenance.crawl_record(),
        jobs,
        count_workers([row for row in annotations if row["origin"] == "crowd"]),  # people paid to label
        issues,
        pay,
        origins=Counter(row["origin"] for row in annotations),
        machine_labels=machine_labels,
    )
    (directory / DATASHEET).write_bytes(render_markdown(sheet, statistics).encode())
    return sheet


def _write_data_files(
    version: str, directory: Path, records: dict[str, Any], annotations: list[dict[str, Any]]
) -> None:
    """The PERSPECTRUM files, the JSON-lines files and their schemas."""
    write_perspectrum(version, directory, records)
    for path, rows in jsonl_files(records, annotations, provenance.label_orders()).items():
        (directory / path).parent.mkdir(exist_ok=True)
        (directory / path).write_bytes(dumps_lines(rows))
    (directory / SCHEMAS).mkdir(exist_ok=True)
    for schema_file in schema_files():
        shutil.copyfile(schema_file, directory / SCHEMAS / schema_file.name)


def _candidate_rankings(jobs: list[dict[str, Any]]) -> list[str]:
    """Which ranking chose each job's retrieved candidates (search.services.ranking_name)."""
    return sorted(
        {job["filters"]["candidates_ranked_by"] for job in jobs if "candidates_ranked_by" in job["filters"]}
    )


def build_release(
    version: str,
    *,
    split_plan: SplitPlan | None = None,
    notes: str = "",
    progress: Progress = QUIET,
    machine_labels: bool = True,
) -> Release:
    """Build, store and record release `version`: refused if the version exists; never overwrites.
    Without `machine_labels`, the machines' labels are left out of it (and it says so).

    With `split_plan`, the claims are re-split first (and `Claim.split` updated); without it the
    stored split is released as it stands. Files are written to a scratch directory beside the
    release's and renamed into place, so a failed build leaves no half release behind.
    """
    root = Path(settings.RELEASES_DIR)
    final = root / version
    check_new_version(version, final)
    with progress.stage("split the claims" if split_plan else "read the stored split"):
        split = assign_claim_splits(split_plan) if split_plan else stored_split_report()
    key = provenance.release_key(version)
    manifest = _write_into_place(version, final, key, split, progress, machine_labels)
    zip_path = root / f"{version}.zip"
    with progress.stage("zip and hash the files", unit="files") as done:
        write_zip(final, zip_path, f"stancework-{version}", manifest["state_time"])
        entries = file_entries(final, [MANIFEST, *release_paths(final)])
        done(len(entries))
    audit.record(None, AuditEvent.Action.RELEASED, f"release {version}", files=len(entries))
    return Release.objects.create(
        version=version,
        code_version=manifest["code_version"],
        directory=version,
        files=entries,
        manifest=manifest,
        zip_sha256=sha256_of(zip_path),
        pseudonym_key=key.hex(),
        notes=notes,
    )


def check_new_version(version: str, final: Path) -> None:
    """Refuse a version name that is malformed, reserved, or taken (recorded or on disk at `final`)."""
    if not VERSION.fullmatch(version):
        raise ReleaseVersionError(f"{version!r}: use letters, digits, '.', '_' or '-' (at most 64)")
    if version in RESERVED_VERSIONS:
        raise ReleaseVersionError(f"{version!r} is reserved by the releases page; choose another name")
    if Release.objects.filter(version=version).exists() or final.exists():
        raise ReleaseExistsError(f"release {version} exists ({final}); releases are never rebuilt")


def _write_into_place(
    version: str, final: Path, key: bytes, split: dict[str, Any], progress: Progress, machine_labels: bool
) -> dict[str, Any]:
    """Write the release's files into a scratch directory beside `final`, make them read-only and rename
    it to `final`; the manifest. A failed build leaves no scratch directory behind."""
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".building-{version}-", dir=final.parent))
    scratch.chmod(0o755)
    try:
        with progress.stage("write the release files", unit="files") as done:
            manifest = write_release_files(
                version, scratch, key, provenance.code_version(), split, machine_labels=machine_labels
            )
            done(len(manifest["files"]))
        for path in scratch.rglob("*"):
            if path.is_file():
                path.chmod(0o444)  # a release's files are read-only on disk too
        try:
            scratch.rename(final)  # fails when another build took the name meanwhile
        except OSError as error:
            raise ReleaseExistsError(f"release {version}: {final} appeared during the build") from error
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, onerror=_make_writable)
    return manifest


def _make_writable(function: Any, path: str, _info: Any) -> None:
    Path(path).chmod(0o644)
    function(path)


def diff_releases(before: Release, after: Release) -> ReleaseDiff:
    """What changed from one stored release to another."""
    return diff(_stored(before), _stored(after))


def file_changes(before: Release, after: Release) -> list[dict[str, Any]]:
    """Every file of either release: its name and bytes in each, as written on disk, and whether it is
    the same, changed, added or removed (by sha256). Files named after their version (``…_v1.0.json``,
    ``…_v1.1.json``) are one file of the two releases."""
    old, new = ({_unversioned(f["name"], r.version): f for f in r.files} for r in (before, after))
    rows = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        state = "added" if a is None else "removed" if b is None else "same"
        if a is not None and b is not None and a["sha256"] != b["sha256"]:
            state = "changed"
        rows.append(
            {
                "before_name": a and a["name"],
                "after_name": b and b["name"],
                "state": state,
                "before": a and a["bytes"],
                "after": b and b["bytes"],
            }
        )
    return rows


def _unversioned(name: str, version: str) -> str:
    return name.replace(f"_v{version}.", "_v{version}.")


def _stored(release: Release) -> PerspectrumRelease:
    """A stored release's records, read without re-validating: they were validated when built, and
    the release page would otherwise spend seconds in JSON Schema on every diff of a full corpus."""
    names = file_names(release.version)
    load = {
        kind: json.loads((release.path / names[kind]).read_bytes()) for kind in (CLAIMS, POOL, SPLIT, TOPIC)
    }
    return PerspectrumRelease(
        version=release.version, claims=load[CLAIMS], pool=load[POOL], split=load[SPLIT], topics=load[TOPIC]
    )
