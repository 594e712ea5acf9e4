"""Corpus services: public id allocation and the PERSPECTRUM release import."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection, models, transaction
from django.db.models import Max, QuerySet

from config.progress import QUIET, Progress
from corpus.models import (
    Claim,
    ClaimTopic,
    ClusterEvidence,
    ClusterMember,
    Evidence,
    Origin,
    Perspective,
    PerspectiveCluster,
    Status,
    Topic,
)
from corpus.perspectrum import Release, read_release

PUBLIC_ID = {Claim: "cid", Perspective: "pid", Evidence: "eid"}
# The release's `source` values that are not debate sites.
ORIGIN_BY_SOURCE = {"paraphrase": Origin.PARAPHRASE, "google": Origin.WEB}
BATCH = 2000


def allocate_ids(model: type[models.Model], count: int) -> list[int]:
    """`count` fresh public ids for `model` (Claim, Perspective or Evidence), above the current max.

    Call inside the transaction that creates the rows: the table lock taken by
    select_for_update on PostgreSQL (and SQLite's single writer) keeps two callers apart.
    """
    field_name = PUBLIC_ID[model]
    with transaction.atomic():
        list(model._default_manager.select_for_update().order_by(f"-{field_name}").values_list("pk")[:1])
        top = model._default_manager.aggregate(top=Max(field_name))["top"] or 0
    return list(range(top + 1, top + 1 + count))


@dataclass
class ImportReport:
    version: str
    created: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    evidence_without_text: int = 0

    @property
    def changed(self) -> bool:
        return bool(+self.created or +self.updated)

    def lines(self) -> list[str]:
        kinds = sorted(set(self.created) | set(self.updated) | set(self.unchanged))
        notes = (
            [f"evidence without text (ids kept, text marked missing): {self.evidence_without_text}"]
            if self.evidence_without_text
            else []
        )
        return notes + [
            f"{kind}: {self.created[kind]} created, {self.updated[kind]} updated, "
            f"{self.unchanged[kind]} unchanged"
            for kind in kinds
        ]


def import_perspectrum(
    directory: Path | str, version: str | None = None, progress: Progress = QUIET
) -> ImportReport:
    """Import a PERSPECTRUM release; idempotent. Validates everything before writing anything."""
    with progress.stage("read and validate the release"):
        release = read_release(Path(directory), version)
    report = ImportReport(release.version)
    with transaction.atomic():
        with progress.stage("claims", unit="claims") as done:
            claims = _sync_claims(release, report)
            done(len(claims))
        with progress.stage("perspectives", len(release.pool), unit="perspectives") as done:
            perspectives = _sync_perspectives(release, report)
            done(len(perspectives))
        with progress.stage("evidence", unit="paragraphs") as done:
            evidence = _sync_evidence(release, report)
            done(len(evidence))
        with progress.stage("paraphrase links and topics", len(release.topics), unit="claims") as done:
            _sync_paraphrase_links(release, perspectives, report)
            _sync_topics(release, claims, report)
            done(len(release.topics))
        with progress.stage("perspective clusters", len(release.claims), unit="claims") as done:
            _sync_clusters(release, claims, perspectives, evidence, report)
            done(len(release.claims))
    return report


def _sync_rows(
    model: type[models.Model],
    key: str,
    desired: dict[int, dict[str, Any]],
    report: ImportReport,
    kind: str,
    keep_known_text: bool = False,
) -> dict[int, int]:
    """Create missing rows and update changed ones; returns public id → pk."""
    fields = sorted({name for row in desired.values() for name in row})
    existing = {row[key]: row for row in model._default_manager.values("pk", key, *fields)}
    to_create, to_update = [], []
    for public_id, values in desired.items():
        row = existing.get(public_id)
        if row is None:
            to_create.append(model(**{key: public_id}, **values))
            continue
        if keep_known_text and values.get("text_missing") and not row["text_missing"]:
            report.unchanged[kind] += 1  # never overwrite a known text with "missing"
            continue
        if any(row[name] != value for name, value in values.items()):
            to_update.append(model(pk=row["pk"], **{key: public_id}, **values))
        else:
            report.unchanged[kind] += 1
    model._default_manager.bulk_create(to_create, batch_size=BATCH)
    if to_update:
        model._default_manager.bulk_update(to_update, fields, batch_size=BATCH)
    report.created[kind] += len(to_create)
    report.updated[kind] += len(to_update)
    return dict(model._default_manager.filter(**{f"{key}__in": list(desired)}).values_list(key, "pk"))


def _sync_claims(release: Release, report: ImportReport) -> dict[int, int]:
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
    return _sync_rows(Claim, "cid", desired, report, "claims", keep_known_text=True)


def _sync_perspectives(release: Release, report: ImportReport) -> dict[int, int]:
    desired = {
        item["pId"]: {
            "text": item["text"],
            "source": item["source"],
            "origin": ORIGIN_BY_SOURCE.get(item["source"], Origin.CRAWLED),
        }
        for item in release.pool
    }
    return _sync_rows(Perspective, "pid", desired, report, "perspectives")


def _sync_evidence(release: Release, report: ImportReport) -> dict[int, int]:
    desired: dict[int, dict[str, Any]] = {}
    for item in release.evidence or []:
        desired[item["eId"]] = {"text": item["text"], "source": item["source"], "text_missing": False}
    for claim in release.claims:
        for cluster in claim["perspectives"]:
            for eid in cluster["evidence"]:
                desired.setdefault(eid, {"text": "", "source": "", "text_missing": True})
    pks = _sync_rows(Evidence, "eid", desired, report, "evidence", keep_known_text=True)
    report.evidence_without_text = Evidence.objects.filter(pk__in=pks.values(), text_missing=True).count()
    return pks


def _sync_paraphrase_links(release: Release, perspectives: dict[int, int], report: ImportReport) -> None:
    """A paraphrase paraphrases its cluster's original (first member); the first cluster by cId wins."""
    original_of: dict[int, int] = {}
    sources = {item["pId"]: item["source"] for item in release.pool}
    for claim in sorted(release.claims, key=lambda c: c["cId"]):
        for cluster in claim["perspectives"]:
            head, *rest = cluster["pids"]
            for pid in rest:
                if sources[pid] == "paraphrase":
                    original_of.setdefault(pid, head)
    current = dict(
        Perspective.objects.filter(pid__in=list(original_of)).values_list("pid", "paraphrase_of__pid")
    )
    changed = [
        (perspectives[head], perspectives[pid])
        for pid, head in original_of.items()
        if current.get(pid) != head
    ]
    # One prepared UPDATE run many times: bulk_update's CASE expression is quadratic-ish here.
    table, column = Perspective._meta.db_table, Perspective._meta.get_field("paraphrase_of").column
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {column} = %s WHERE id = %s", changed)
    report.updated["paraphrase links"] += len(changed)
    report.unchanged["paraphrase links"] += len(original_of) - len(changed)


def _sync_topics(release: Release, claims: dict[int, int], report: ImportReport) -> None:
    topic_pk = dict(Topic.objects.values_list("slug", "pk"))
    desired = {claims[entry["claim_id"]]: entry["topics"] for entry in release.topics}
    current: dict[int, list[str]] = {pk: [] for pk in desired}
    for claim_pk, slug in (
        ClaimTopic.objects.filter(claim_id__in=list(desired))
        .values_list("claim_id", "topic__slug")
        .order_by("claim_id", "position")
    ):
        current[claim_pk].append(slug)
    stale = [pk for pk, slugs in desired.items() if current[pk] != slugs]
    ClaimTopic.objects.filter(claim_id__in=stale).delete()
    ClaimTopic.objects.bulk_create(
        [
            ClaimTopic(claim_id=pk, topic_id=topic_pk[slug], position=position)
            for pk in stale
            for position, slug in enumerate(desired[pk])
        ],
        batch_size=BATCH,
    )
    report.updated["claim topics"] += len(stale)
    report.unchanged["claim topics"] += len(desired) - len(stale)


ClusterKey = tuple[str, str, tuple[int, ...], tuple[int, ...], tuple[int, ...], str]


def _sync_clusters(
    release: Release,
    claims: dict[int, int],
    perspectives: dict[int, int],
    evidence: dict[int, int],
    report: ImportReport,
) -> None:
    """Replace a claim's clusters only when they differ from the release's."""
    desired = {
        claims[claim["cId"]]: [
            (
                c["stance_label_3"],
                c["stance_label_5"],
                tuple(c["voter_counts"]),
                tuple(c["pids"]),
                tuple(c["evidence"]),
                Status.KEPT,
            )
            for c in claim["perspectives"]
        ]
        for claim in release.claims
    }
    current = _current_clusters(list(desired))
    stale = [pk for pk, clusters in desired.items() if current.get(pk, []) != clusters]
    PerspectiveCluster.objects.filter(claim_id__in=stale).delete()
    new = [
        PerspectiveCluster(
            claim_id=pk, position=position, stance_3=s3, stance_5=s5, voter_counts=list(votes), status=status
        )
        for pk in stale
        for position, (s3, s5, votes, _pids, _eids, status) in enumerate(desired[pk])
    ]
    PerspectiveCluster.objects.bulk_create(new, batch_size=BATCH)
    pk_of = {
        (claim_pk, position): pk
        for pk, claim_pk, position in PerspectiveCluster.objects.filter(claim_id__in=stale).values_list(
            "pk", "claim_id", "position"
        )
    }
    members, links = [], []
    for claim_pk in stale:
        for position, (_s3, _s5, _votes, pids, eids, _status) in enumerate(desired[claim_pk]):
            cluster_pk = pk_of[(claim_pk, position)]
            members += [
                ClusterMember(cluster_id=cluster_pk, perspective_id=perspectives[p], position=i)
                for i, p in enumerate(pids)
            ]
            links += [
                ClusterEvidence(cluster_id=cluster_pk, evidence_id=evidence[e], position=i)
                for i, e in enumerate(eids)
            ]
    ClusterMember.objects.bulk_create(members, batch_size=BATCH)
    ClusterEvidence.objects.bulk_create(links, batch_size=BATCH)
    report.updated["claim clusters"] += len(stale)
    report.unchanged["claim clusters"] += len(desired) - len(stale)


def cluster_contents(
    clusters: QuerySet[PerspectiveCluster],
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """For the given clusters, cluster pk → member pIds (original first) and → evidence eIds, in order.

    Two queries whatever the number of clusters; the import and the export both read clusters so.
    """
    pids: dict[int, list[int]] = {}
    for cluster_pk, pid in (
        ClusterMember.objects.filter(cluster__in=clusters)
        .order_by("cluster_id", "position")
        .values_list("cluster_id", "perspective__pid")
    ):
        pids.setdefault(cluster_pk, []).append(pid)
    eids: dict[int, list[int]] = {}
    for cluster_pk, eid in (
        ClusterEvidence.objects.filter(cluster__in=clusters)
        .order_by("cluster_id", "position")
        .values_list("cluster_id", "evidence__eid")
    ):
        eids.setdefault(cluster_pk, []).append(eid)
    return pids, eids


def _current_clusters(claim_pks: list[int]) -> dict[int, list[ClusterKey]]:
    """Each claim's clusters as comparable tuples, in three queries."""
    rows = PerspectiveCluster.objects.filter(claim_id__in=claim_pks).order_by("claim_id", "position")
    pids, eids = cluster_contents(rows)
    current: dict[int, list[ClusterKey]] = {}
    for pk, claim_pk, s3, s5, votes, status in rows.values_list(
        "pk", "claim_id", "stance_3", "stance_5", "voter_counts", "status"
    ):
        current.setdefault(claim_pk, []).append(
            (s3, s5, tuple(votes), tuple(pids.get(pk, [])), tuple(eids.get(pk, [])), status)
        )
    return current
