"""assign_claim_splits: the split written to the claims, keeping a split a person set and saying what
it moved that another writer had placed."""

from __future__ import annotations

import pytest

from accounts.models import AuditEvent
from corpus.models import Claim, Split
from corpus.provenance import Writer
from export.claim_splits import assign_claim_splits
from export.splits import SplitPlan
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def test_a_split_a_person_set_stays_when_everything_is_split_afresh() -> None:
    claims = make_corpus(claims=12, perspectives=1)
    chosen = claims[0]
    Claim.objects.filter(pk=chosen.pk).update(split=Split.DEV, **Writer.person(None, "admin edit").fields())

    for seed in range(5):
        assign_claim_splits(SplitPlan(seed=seed))
        assert Claim.objects.get(pk=chosen.pk).split == Split.DEV


def test_moving_a_claim_another_writer_placed_is_reported_and_audited() -> None:
    make_corpus(claims=12, perspectives=1)
    assign_claim_splits(SplitPlan(seed=0))
    Claim.objects.update(written_by="import", written_ref="PERSPECTRUM v1.0")

    report = next(
        found
        for seed in range(1, 20)
        if "corpus_writes" in (found := assign_claim_splits(SplitPlan(seed=seed)))
    )

    (writer,) = report["corpus_writes"]["rewrote"]
    assert writer == "import: PERSPECTRUM v1.0"
    assert AuditEvent.objects.filter(action=AuditEvent.Action.WROTE_OVER, target="claim splits").exists()


def test_placing_new_claims_rewrites_nothing_and_stamps_them() -> None:
    make_corpus(claims=6, perspectives=1)

    report = assign_claim_splits(SplitPlan(seed=0), keep_existing=True)

    assert "corpus_writes" not in report
    assert set(Claim.objects.values_list("written_ref", flat=True)) == {"split (seed 0)"}
