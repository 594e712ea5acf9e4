"""corpus.bulk writes rows as bulk_create and bulk_update would (COPY on PostgreSQL, a prepared
statement elsewhere), and a broken row writes nothing."""

from __future__ import annotations

import pytest
from django.db import transaction

from corpus import bulk
from corpus.models import Claim, PerspectiveCluster, WrittenBy
from corpus.provenance import Writer

pytestmark = pytest.mark.django_db

STAMP = Writer.release("1.0").fields()
SAME = ("text", "source", "split", "text_missing", "release_digest", "written_by", "written_ref",
        "written_by_user", "written_at", "topics_release_digest", "clusters_release_digest",
        "source_url", "original_title")  # fmt: skip


def test_insert_writes_what_bulk_create_writes() -> None:
    row = (1, "Zoos should close", "idebate", "d1")
    bulk.insert(Claim, ["cid", "text", "source", "release_digest"], [row], **STAMP)
    Claim.objects.bulk_create(
        [Claim(cid=2, text="Zoos should close", source="idebate", release_digest="d1", **STAMP)]
    )

    inserted, created = (Claim.objects.get(cid=cid) for cid in (1, 2))
    assert {name: getattr(inserted, name) for name in SAME} == {name: getattr(created, name) for name in SAME}
    assert inserted.written_by == WrittenBy.IMPORT and inserted.written_at == STAMP["written_at"]
    assert inserted.created is not None and inserted.updated is not None  # auto_now_add / auto_now


def test_insert_prepares_json_and_counts_its_rows() -> None:
    claim = Claim.objects.create(cid=1, text="Zoos should close")
    rows = [(claim.pk, position, "SUPPORT", "", [position, 2, 0, 0, 1], "kept") for position in range(3)]

    count = bulk.insert(PerspectiveCluster, ["claim_id", "position", "stance_3", "stance_5", "voter_counts",
                                             "status"], rows, **STAMP)  # fmt: skip

    assert count == 3
    stored = list(PerspectiveCluster.objects.order_by("position").values_list("position", "voter_counts"))
    assert stored == [(0, [0, 2, 0, 0, 1]), (1, [1, 2, 0, 0, 1]), (2, [2, 2, 0, 0, 1])]
    assert PerspectiveCluster.objects.filter(agreement=None, written_ref="PERSPECTRUM v1.0").count() == 3


def test_a_row_of_the_wrong_length_writes_nothing() -> None:
    rows = [(1, "Zoos should close"), (2,)]

    with pytest.raises(ValueError, match="a row of 1 values for 2 fields"), transaction.atomic():
        bulk.insert(Claim, ["cid", "text"], rows)

    assert not Claim.objects.exists()


def test_update_sets_its_fields_and_the_same_values_and_nothing_else() -> None:
    claims = [Claim.objects.create(cid=cid, text=f"claim {cid}", source="idebate") for cid in (1, 2, 3)]
    person = Writer.person(None, "an edit").fields()

    rows = [(claims[0].pk, "new 1", "d1"), (claims[2].pk, "new 3", "d3")]
    bulk.update(Claim, ["text", "release_digest"], rows, **person)

    after = {claim.cid: claim for claim in Claim.objects.all()}
    assert [(after[c].text, after[c].release_digest, after[c].written_by) for c in (1, 2, 3)] == [
        ("new 1", "d1", WrittenBy.PERSON),
        ("claim 2", "", WrittenBy.IMPORT),
        ("new 3", "d3", WrittenBy.PERSON),
    ]
    assert [after[c].source for c in (1, 2, 3)] == ["idebate"] * 3
    assert after[1].updated == claims[0].updated  # like bulk_update, auto_now is left alone
