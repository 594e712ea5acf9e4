"""A person's removal of a cluster member or evidence link leaves a `Removal` (house style rule 21,
docs/design/house-style.md): without
it, the next job that saw the pair would simply add it back.

Write paths delete members and links through `delete`, and ask `withheld` which pairs they may not
add: for a job, those a person removed (counted as kept, so its output and the audit trail say so);
for a person, none, and their adding a pair again lifts its removal.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from corpus import provenance
from corpus.models import ClusterEvidence, ClusterMember, Removal, WrittenBy

Pair = tuple[int, int]  # (cluster pk, perspective or evidence pk)


def other_field(model: type[models.Model]) -> str:
    """The field a member or link names besides its cluster."""
    if model is ClusterMember:
        return "perspective_id"
    if model is ClusterEvidence:
        return "evidence_id"
    raise TypeError(f"{model.__name__} is neither a cluster member nor an evidence link")


def delete(rows: models.QuerySet[Any]) -> int:
    """Delete members or links; when a person deletes them, each leaves a removal in their name."""
    log = provenance.active()
    if log.writer.kind == WrittenBy.PERSON:
        remember(rows.model, set(rows.values_list("cluster_id", other_field(rows.model))))
    for kind, ref in rows.values_list("written_by", "written_ref"):
        if not log.owns(kind, ref):
            log.removed[f"{kind}: {ref}"] += 1
    return rows.delete()[0]


def remember(model: type[models.Model], pairs: set[Pair]) -> None:
    """Record the active writer (a person) removing these pairs."""
    other, stamp = other_field(model), provenance.stamp()
    Removal.objects.bulk_create(
        [Removal(cluster_id=cluster, **{other: pk}, **stamp) for cluster, pk in sorted(pairs)],
        ignore_conflicts=True,  # removed again: the first removal stands
    )


def withheld(model: type[models.Model], pairs: set[Pair]) -> set[Pair]:
    """Of the (cluster, perspective or evidence) pairs a writer means to add, those it may not: a job
    may not add what a person removed. A person may, and lifts the removal by doing so."""
    log = provenance.active()
    if log.writer.kind == WrittenBy.PERSON:
        lift(model, pairs)
        return set()
    found = {pair: ref for pair, (_, ref) in _removals(model, pairs).items()}
    for ref in found.values():
        log.kept[f"{WrittenBy.PERSON}: {ref} (removed)"] += 1
    return set(found)


def lift(model: type[models.Model], pairs: set[Pair]) -> int:
    """A person adds these pairs (back): their removals no longer hold."""
    return Removal.objects.filter(pk__in=[pk for pk, _ in _removals(model, pairs).values()]).delete()[0]


def _removals(model: type[models.Model], pairs: set[Pair]) -> dict[Pair, tuple[int, str]]:
    """The removals of these pairs: pair → (removal pk, who removed it)."""
    other = other_field(model)
    rows = Removal.objects.filter(
        cluster_id__in={cluster for cluster, _ in pairs}, **{f"{other.removesuffix('_id')}__isnull": False}
    ).values_list("pk", "cluster_id", other, "written_ref")
    return {(cluster, pk): (removal, ref) for removal, cluster, pk, ref in rows if (cluster, pk) in pairs}
