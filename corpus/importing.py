"""The PERSPECTRUM release import: a three-way merge of the release into the platform's corpus.

Each row (a claim, perspective, evidence paragraph, a claim's topics, a claim's clusters with their
members and evidence links) keeps the digest of what the release said when it was last imported.
A re-import changes only rows that still hold that content; where the platform changed a row since
and the release changed it too, the platform's version stays and the report names the conflict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import models, transaction

from accounts import audit
from accounts.models import AuditEvent
from config.progress import QUIET, Progress
from corpus import bulk
from corpus.import_clusters import sync_clusters
from corpus.import_report import Conflict, ImportReport, release_checksum, who
from corpus.merging import Verdict, digest, three_way
from corpus.models import (
    Claim,
    ClaimTopic,
    Evidence,
    ImportedRelease,
    Origin,
    Perspective,
    Topic,
    WrittenBy,
)
from corpus.perspectrum import Release, read_release
from corpus.provenance import PROVENANCE, Writer, last_change

# The release's `source` values that are not debate sites.
ORIGIN_BY_SOURCE = {"paraphrase": Origin.PARAPHRASE, "google": Origin.WEB}


def import_perspectrum(
    directory: Path | str, version: str | None = None, progress: Progress = QUIET, *, dry_run: bool = False
) -> ImportReport:
    """Import a PERSPECTRUM release without undoing the platform's work; validates everything before
    writing anything. With `dry_run`, computes the same report and writes nothing."""
    directory = Path(directory)
    with progress.stage("read and validate the release"):
        release = read_release(directory, version)
    report = ImportReport(release.version, release_checksum(directory, release.version), dry_run)
    report.empty_texts = empty_texts(release)
    writer = Writer.release(release.version)
    with transaction.atomic():
        with progress.stage("claims", unit="claims") as done:
            claims = _sync_claims(release, report, writer)
            done(len(claims))
        with progress.stage("perspectives", len(release.pool), unit="perspectives") as done:
            perspectives = _sync_perspectives(release, report, writer)
            done(len(perspectives))
        with progress.stage("evidence", unit="paragraphs") as done:
            evidence = _sync_evidence(release, report, writer)
            done(len(evidence))
        with progress.stage("paraphrase links and topics", len(release.topics), unit="claims") as done:
            _sync_paraphrase_links(release, perspectives, report)
            _sync_topics(release, claims, report, writer)
            done(len(release.topics))
        with progress.stage("perspective clusters", len(release.claims), unit="claims") as done:
            sync_clusters(release, claims, perspectives, evidence, report, writer)
            done(len(release.claims))
        if dry_run:
            transaction.set_rollback(True)
        else:
            ImportedRelease.objects.create(
                version=release.version, checksum=report.checksum, report=report.as_dict()
            )
            _audit(report, writer)
    return report


def _audit(report: ImportReport, writer: Writer) -> None:
    """The import in the audit trail, and each conflict (the platform's version kept) on its own."""
    audit.record(
        None,
        AuditEvent.Action.IMPORTED,
        writer.ref,
        checksum=report.checksum,
        created=dict(report.created),
        updated=dict(report.updated),
        conflicts=len(report.conflicts),
    )
    for conflict in report.conflicts:
        audit.record(
            None,
            AuditEvent.Action.IMPORT_CONFLICT,
            f"{writer.ref}: {conflict.kind} {conflict.key}",
            release=conflict.release,
            platform=conflict.platform,
            changed_by=conflict.changed_by,
            changed_at=conflict.changed_at,
        )


def already_imported(directory: Path, version: str | None = None) -> ImportedRelease | None:
    """The last import of exactly these release files, if any."""
    checksum = release_checksum(Path(directory), version)
    return ImportedRelease.objects.filter(checksum=checksum).first()


def _sync_rows(
    model: type[models.Model],
    key: str,
    desired: dict[int, dict[str, Any]],
    report: ImportReport,
    kind: str,
    writer: Writer,
    keep_known_text: bool = False,
) -> dict[int, int]:
    """Create missing rows, update those still holding the last release's content, report conflicts;
    returns public id → pk."""
    fields = sorted({name for row in desired.values() for name in row})
    existing = _existing_rows(model, key, fields)
    stamp = writer.fields()
    to_create, to_update, rebased = [], [], []
    for public_id, values in desired.items():
        row, theirs = existing.get(public_id), digest(values)
        if row is not None and keep_known_text and values.get("text_missing") and not row["text_missing"]:
            report.unchanged[kind] += 1  # never overwrite a known text with "missing"
            continue
        ours = None if row is None else digest({name: row[name] for name in values})
        verdict = three_way(row["release_digest"] if row else "", ours, theirs)
        report.count(kind, verdict)
        if verdict is Verdict.CREATE:
            to_create.append((public_id, *(values[name] for name in fields), theirs))
        elif verdict is Verdict.UPDATE:
            assert row is not None
            to_update.append((row["pk"], *(values[name] for name in fields), theirs))
        else:
            assert row is not None
            if verdict is Verdict.CONFLICT:
                report.conflicts.append(_row_conflict(kind, f"{key[0]}{public_id}", values, row))
            if row["release_digest"] != theirs:
                rebased.append((row["pk"], theirs))
    _save(model, [key, *fields, "release_digest"], to_create, to_update, rebased, stamp)
    return _pks(model, key, desired)


def _pks(model: type[models.Model], key: str, wanted: dict[int, Any]) -> dict[int, int]:
    """Public id → pk of the `wanted` rows. The whole table's ids are read and the wanted kept: a
    filter on a million public ids costs more to send than the rows it would leave out."""
    every = model._default_manager.values_list(key, "pk").iterator(chunk_size=20_000)
    return {public_id: pk for public_id, pk in every if public_id in wanted}


def _existing_rows(model: type[models.Model], key: str, fields: list[str]) -> dict[int, dict[str, Any]]:
    """The platform's rows by public id: the merged fields, their base digest and provenance."""
    return {
        row[key]: row
        for row in model._default_manager.values("pk", key, "release_digest", *PROVENANCE, *fields)
    }


def _save(
    model: type[models.Model],
    columns: list[str],
    to_create: list[tuple[Any, ...]],
    to_update: list[tuple[Any, ...]],
    rebased: list[tuple[int, str]],
    stamp: dict[str, Any],
) -> None:
    """New rows (values in the order of `columns`: the public id, the merged fields, the base);
    updated rows (the pk, then the same without the public id, stamped); rows whose base alone
    moves on (the pk and the base)."""
    bulk.insert(model, columns, to_create, **stamp)
    bulk.update(model, columns[1:], to_update, **stamp)
    bulk.update(model, ["release_digest"], rebased)


def _row_conflict(kind: str, key: str, values: dict[str, Any], row: dict[str, Any]) -> Conflict:
    differing = sorted(name for name in values if row[name] != values[name])
    changed_by, changed_at = who(row)
    return Conflict(
        kind, key, {n: values[n] for n in differing}, {n: row[n] for n in differing}, changed_by, changed_at
    )


def _sync_claims(release: Release, report: ImportReport, writer: Writer) -> dict[int, int]:
    split = {int(key): value for key, value in release.split.items()}
    desired = {
        claim["cId"]: {
            "text": claim["text"],
            "text_missing": False,
            "source": claim["source"],
            "split": split.get(claim["cId"], ""),
        }
        for claim in release.claims
    }
    for entry in release.topics:  # claims known only from topic.json: id kept, text never invented
        desired.setdefault(entry["claim_id"], {"text": "", "text_missing": True, "source": "", "split": ""})
    return _sync_rows(Claim, "cid", desired, report, "claims", writer, keep_known_text=True)


def _sync_perspectives(release: Release, report: ImportReport, writer: Writer) -> dict[int, int]:
    desired = {
        item["pId"]: {
            "text": item["text"],
            "source": item["source"],
            "origin": ORIGIN_BY_SOURCE.get(item["source"], Origin.CRAWLED),
        }
        for item in release.pool
    }
    return _sync_rows(Perspective, "pid", desired, report, "perspectives", writer)


def _sync_evidence(release: Release, report: ImportReport, writer: Writer) -> dict[int, int]:
    desired: dict[int, dict[str, Any]] = {}
    for item in release.evidence or []:
        desired[item["eId"]] = {"text": item["text"], "source": item["source"], "text_missing": False}
    for claim in release.claims:
        for cluster in claim["perspectives"]:
            for eid in cluster["evidence"]:
                desired.setdefault(eid, {"text": "", "source": "", "text_missing": True})
    pks = _sync_rows(Evidence, "eid", desired, report, "evidence", writer, keep_known_text=True)
    report.evidence_without_text = Evidence.objects.filter(pk__in=pks.values(), text_missing=True).count()
    return pks


def empty_texts(release: Release) -> dict[str, list[int]]:
    """The ids of the release's claims and perspectives whose text is empty: imported as they are,
    and said, so nobody learns of them from a statistic ("length tokens min 0")."""
    found = {
        "claims": [c["cId"] for c in release.claims if not str(c["text"]).strip()],
        "perspectives": [p["pId"] for p in release.pool if not str(p["text"]).strip()],
    }
    return {kind: ids for kind, ids in found.items() if ids}


def _sync_paraphrase_links(release: Release, perspectives: dict[int, int], report: ImportReport) -> None:
    """A paraphrase paraphrases its cluster's original (first member); the first cluster by cId wins.
    Only the release's own perspectives are linked: a link the platform set stays."""
    original_of: dict[int, int] = {}
    sources = {item["pId"]: item["source"] for item in release.pool}
    for claim in sorted(release.claims, key=lambda c: c["cId"]):
        for cluster in claim["perspectives"]:
            head, *rest = cluster["pids"]
            for pid in rest:
                if sources[pid] == "paraphrase":
                    original_of.setdefault(pid, head)
    current = dict(
        Perspective.objects.filter(pid__in=list(original_of), written_by=WrittenBy.IMPORT).values_list(
            "pid", "paraphrase_of__pid"
        )
    )
    changed = [
        (perspectives[pid], perspectives[head])
        for pid, head in original_of.items()
        if pid in current and current[pid] != head
    ]
    bulk.update(Perspective, ["paraphrase_of_id"], changed)
    # A link set where there was none is made, not changed (a first import makes every link).
    made = sum(1 for pid, head in original_of.items() if pid in current and current[pid] is None)
    report.created["paraphrase links"] += made
    report.updated["paraphrase links"] += len(changed) - made
    report.unchanged["paraphrase links"] += len(original_of) - len(changed)


def _sync_topics(release: Release, claims: dict[int, int], report: ImportReport, writer: Writer) -> None:
    """Each claim's topics, in order, as one row of the merge (base: `Claim.topics_release_digest`)."""
    desired = {claims[entry["claim_id"]]: entry["topics"] for entry in release.topics}
    current = _current_topics(list(desired))
    bases = dict(Claim.objects.filter(pk__in=list(desired)).values_list("pk", "topics_release_digest"))
    cids = {pk: cid for cid, pk in claims.items()}
    replace, rebased = [], []
    for pk, slugs in desired.items():
        rows = current.get(pk)
        absent = rows is None and not bases[pk] and slugs  # nothing yet: the release's topics are new
        ours = None if absent else digest([r["topic__slug"] for r in rows or []])
        theirs = digest(slugs)
        verdict = three_way(bases[pk], ours, theirs)
        report.count("claim topics", verdict)
        if verdict in (Verdict.CREATE, Verdict.UPDATE):
            replace.append(pk)
        elif verdict is Verdict.CONFLICT:
            platform = [r["topic__slug"] for r in rows or []]
            changed_by, changed_at = who(last_change(rows or []))
            report.conflicts.append(
                Conflict("claim topics", f"c{cids[pk]}", slugs, platform, changed_by, changed_at)
            )
        if bases[pk] != theirs:
            rebased.append((pk, theirs))
    _replace_topics({pk: desired[pk] for pk in replace}, writer)
    bulk.update(Claim, ["topics_release_digest"], rebased)


def _current_topics(claim_pks: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Each claim's topic rows on the platform, in order, with their provenance."""
    current: dict[int, list[dict[str, Any]]] = {}
    for row in (
        ClaimTopic.objects.filter(claim_id__in=claim_pks)
        .order_by("claim_id", "position")
        .values("claim_id", "topic__slug", *PROVENANCE)
    ):
        current.setdefault(row["claim_id"], []).append(row)
    return current


def _replace_topics(topics: dict[int, list[str]], writer: Writer) -> None:
    """Give these claims exactly these topics (slugs, in order), written by `writer`."""
    topic_pk = dict(Topic.objects.values_list("slug", "pk"))
    ClaimTopic.objects.filter(claim_id__in=list(topics)).delete()
    rows = (
        (pk, topic_pk[slug], position) for pk, slugs in topics.items() for position, slug in enumerate(slugs)
    )
    bulk.insert(ClaimTopic, ["claim_id", "topic_id", "position"], rows, **writer.fields())
