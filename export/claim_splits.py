"""Placing the claims in train, dev and test: by a split plan (the claims a person placed stay where
they are), or the split as it stands in the database."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from corpus import provenance as corpus_provenance
from corpus.models import Claim, ClaimTopic, WrittenBy
from corpus.provenance import Writer
from export.splits import SPLITS, SplitPlan, split_claims, split_report


def exported_topics() -> dict[int, list[str]]:
    """cId → topic slugs in annotator order, for every claim the release files carry (text known)."""
    topics: dict[int, list[str]] = {
        cid: [] for cid in Claim.objects.filter(text_missing=False).values_list("cid", flat=True)
    }
    for cid, slug in (
        ClaimTopic.objects.filter(claim__text_missing=False)
        .order_by("claim__cid", "position")
        .values_list("claim__cid", "topic__slug")
    ):
        topics[cid].append(slug)
    return topics


def assign_claim_splits(plan: SplitPlan, *, keep_existing: bool = False) -> dict[str, Any]:
    """Split the exportable claims by `plan` into `Claim.split`; returns the split report.

    With `keep_existing`, claims that have a split keep it and only new claims are placed (a later
    release never moves a released claim between train and test). Only claims whose split changes
    are written (and touched), so re-running the same plan leaves the database state, and hence the
    next release, unchanged.
    """
    topics = exported_topics()
    claims = Claim.objects.filter(cid__in=list(topics))
    current = dict(claims.values_list("cid", "split"))
    # A split a person set stays, whatever the plan (house style rule 21, docs/design/house-style.md).
    held = set(claims.filter(written_by=WrittenBy.PERSON).exclude(split="").values_list("cid", flat=True))
    fixed = {cid: split for cid, split in current.items() if split and (keep_existing or cid in held)}
    result = split_claims(topics, plan, fixed if keep_existing or held else None)
    with transaction.atomic(), corpus_provenance.writing(Writer.process(f"split (seed {plan.seed})")) as log:
        for name in SPLITS:
            moved = [
                cid for cid, split in result.assignment.items() if split == name and current[cid] != name
            ]
            log.guard(
                Claim.objects.filter(cid__in=moved).exclude(split="")
            )  # counted: filling a blank is not
            for start in range(0, len(moved), 500):
                Claim.objects.filter(cid__in=moved[start : start + 500]).update(
                    split=name, updated=timezone.now(), **log.stamp()
                )
    report = result.report(topics)
    if log.touched_others:
        report["corpus_writes"] = log.detail()
        audit.record(None, AuditEvent.Action.WROTE_OVER, "claim splits", seed=plan.seed, **log.detail())
    return report


def stored_split_report() -> dict[str, Any]:
    """The report of the split as it stands in `Claim.split` (e.g. an imported release's own)."""
    topics = exported_topics()
    stored = dict(Claim.objects.filter(cid__in=list(topics)).exclude(split="").values_list("cid", "split"))
    return {"grouping": "as stored", **split_report(stored, topics)}
