"""corpus.provenance: who writes, which rows a writer may rewrite, and what it says about the rest."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from corpus import provenance
from corpus.merging import Verdict, digest, three_way
from corpus.models import PerspectiveCluster, WrittenBy
from corpus.provenance import Writer
from tests.annotation.factories import make_corpus


def test_three_way_keeps_the_platform_unless_the_row_still_holds_the_release() -> None:
    old, new, platform = digest(["old"]), digest(["new"]), digest(["platform"])

    assert three_way(old, None, new) is Verdict.CREATE
    assert three_way(old, old, old) is Verdict.UNCHANGED
    assert three_way(old, platform, old) is Verdict.UNCHANGED  # the release did not change it
    assert three_way(old, new, new) is Verdict.UNCHANGED  # the platform already agrees
    assert three_way(old, old, new) is Verdict.UPDATE
    assert three_way(old, platform, new) is Verdict.CONFLICT
    assert three_way("", platform, new) is Verdict.CONFLICT  # no base known: never overwrite


def test_digests_do_not_depend_on_key_order_or_tuples() -> None:
    assert digest({"a": 1, "b": (1, 2)}) == digest({"b": [1, 2], "a": 1})


@pytest.mark.django_db
def test_a_job_rewrites_others_rows_but_never_a_persons_and_counts_both() -> None:
    (claim,) = make_corpus(claims=1, perspectives=3)
    first, second, third = claim.clusters.order_by("position")
    PerspectiveCluster.objects.filter(pk=second.pk).update(
        **Writer.person(get_user_model().objects.create_user("ann"), "merge").fields()
    )
    PerspectiveCluster.objects.filter(pk=third.pk).update(**Writer.job(4, "aggregation run 9").fields())

    with provenance.writing(Writer.job(4, "aggregation run 10")) as log:
        allowed = provenance.guard(claim.clusters.all())

    assert sorted(allowed) == sorted([first.pk, third.pk])
    assert log.detail() == {"rewrote": {"import: ": 1}, "kept": {"person: merge by ann": 1}}
    assert log.lines() == [
        "rewrote 1 row(s) last written by import: ",
        "kept 1 row(s) as person: merge by ann left them",
    ]


@pytest.mark.django_db
def test_a_person_may_rewrite_anything_and_it_is_counted() -> None:
    (claim,) = make_corpus(claims=1, perspectives=2)
    first = claim.clusters.order_by("position").first()
    PerspectiveCluster.objects.filter(pk=first.pk).update(**Writer.person(None, "split").fields())

    with provenance.writing(Writer.person(None, "merge")) as log:
        allowed = provenance.guard(claim.clusters.all())

    assert len(allowed) == 2
    assert log.rewrote == {"person: split by system": 1, "import: ": 1}


@pytest.mark.django_db
def test_touching_a_cluster_leaves_a_persons_stamp_in_place() -> None:
    (claim,) = make_corpus(claims=1, perspectives=2)
    first, second = claim.clusters.order_by("position")
    PerspectiveCluster.objects.filter(pk=first.pk).update(**Writer.person(None, "merge").fields())

    with provenance.writing(Writer.job(3)):
        provenance.touch(claim.clusters.all())

    assert PerspectiveCluster.objects.get(pk=first.pk).written_by == WrittenBy.PERSON
    assert PerspectiveCluster.objects.get(pk=second.pk).written_ref == "job 3"


def test_outside_a_writing_block_writes_are_an_unnamed_job_s() -> None:
    assert provenance.stamp()["written_ref"] == "a write-back outside a job"
    with provenance.writing(Writer.crawl(5)):
        assert provenance.stamp()["written_ref"] == "crawl run 5"
    assert provenance.active().writer == provenance.UNNAMED
