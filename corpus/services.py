"""Corpus services: public id allocation, cluster contents, and the PERSPECTRUM release import
(`corpus.importing`)."""

from __future__ import annotations

from django.db import models, transaction
from django.db.models import Max, QuerySet

from corpus.import_report import ImportReport
from corpus.importing import already_imported, import_perspectrum
from corpus.models import Claim, ClusterEvidence, ClusterMember, Evidence, Perspective, PerspectiveCluster

__all__ = ["ImportReport", "allocate_ids", "already_imported", "cluster_contents", "import_perspectrum"]

PUBLIC_ID: dict[type[models.Model], str] = {Claim: "cid", Perspective: "pid", Evidence: "eid"}


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
