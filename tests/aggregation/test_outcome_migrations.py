"""Migrations 0008–0009 (the outcome's keys unchecked, its job indexed by block ranges) keep every
outcome and adjudication, on SQLite (which rebuilds the table) as on PostgreSQL; 0011 (counts as an
integer array on PostgreSQL) keeps every count, both ways; 0012 (the outcome keyed by its item) keeps
every outcome and each adjudication on its item's outcome, both ways."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from django.db.migrations.state import StateApps
from django.utils import timezone

from aggregation.models import ItemOutcome  # its field reads the counts as JSON or as an array
from tests.migration_states import latest, migrated

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE, AFTER = (
    ("aggregation", "0007_outcome_fillfactor"),
    ("aggregation", "0009_outcome_job_block_range_index"),
)


@pytest.fixture
def at_0007() -> Iterator[StateApps]:
    yield migrated(BEFORE)
    migrated(latest("aggregation"))


def test_the_outcomes_and_their_adjudications_survive_the_migrations(at_0007: StateApps) -> None:
    job = at_0007.get_model("annotation", "Job").objects.create(name="j", task_type="stance")
    items = [at_0007.get_model("annotation", "Item").objects.create(job=job, key=str(n)) for n in range(3)]
    run = at_0007.get_model("aggregation", "AggregationRun").objects.create(job=job, task_type="stance")
    Outcome = at_0007.get_model("aggregation", "ItemOutcome")
    outcomes = [
        Outcome.objects.create(item=item, job=job, run=run, label=f"L{n}", counts=[n, 1], contested=n == 1)
        for n, item in enumerate(items)
    ]
    at_0007.get_model("aggregation", "Adjudication").objects.create(
        outcome=outcomes[1], job=job, new_label="L9", new_status="kept", decided_at=timezone.now()
    )
    before = list(
        Outcome.objects.order_by("pk").values_list("pk", "item_id", "job_id", "run_id", "label", "counts")
    )

    after = migrated(AFTER)

    Outcome = after.get_model("aggregation", "ItemOutcome")
    kept = list(
        Outcome.objects.order_by("pk").values_list("pk", "item_id", "job_id", "run_id", "label", "counts")
    )
    assert kept == before
    adjudication = after.get_model("aggregation", "Adjudication").objects.get()
    assert (adjudication.outcome_id, adjudication.new_label) == (outcomes[1].pk, "L9")
    assert list(Outcome.objects.filter(job_id=job.pk, contested=True).values_list("pk", flat=True)) == [
        outcomes[1].pk
    ]


@pytest.fixture
def at_0010() -> Iterator[StateApps]:
    yield migrated(("aggregation", "0010_outcome_run_restricted"))
    migrated(latest("aggregation"))


def test_the_counts_become_integer_arrays_and_back_with_every_value_kept(at_0010: StateApps) -> None:
    job = at_0010.get_model("annotation", "Job").objects.create(name="j", task_type="stance")
    run = at_0010.get_model("aggregation", "AggregationRun").objects.create(job=job, task_type="stance")
    Outcome = at_0010.get_model("aggregation", "ItemOutcome")
    for n, counts in enumerate([[3, 0, 1], [], [0, 12]]):
        item = at_0010.get_model("annotation", "Item").objects.create(job=job, key=str(n))
        Outcome.objects.create(item=item, job=job, run=run, counts=counts)

    migrated(("aggregation", "0011_outcome_counts_integer_array"))

    counts = list(ItemOutcome.objects.order_by("item_id").values_list("counts", flat=True))
    assert counts == [[3, 0, 1], [], [0, 12]]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT data_type FROM information_schema.columns "
                "WHERE table_name = 'aggregation_itemoutcome' AND column_name = 'counts'"
            )
            assert cursor.fetchone()[0] == "ARRAY"
        back = migrated(("aggregation", "0010_outcome_run_restricted"))
        counts = list(
            back.get_model("aggregation", "ItemOutcome")
            .objects.order_by("item_id")
            .values_list("counts", flat=True)
        )
        assert counts == [[3, 0, 1], [], [0, 12]]


def test_outcomes_keyed_by_item_keep_their_adjudications_both_ways(at_0010: StateApps) -> None:
    # Made at 0010, whose counts are JSON on every database (0011's array is PostgreSQL's).
    job = at_0010.get_model("annotation", "Job").objects.create(name="j", task_type="stance")
    Item = at_0010.get_model("annotation", "Item")
    # More items than outcomes, made in another order, so no outcome's id is its item's.
    items = [Item.objects.create(job=job, key=str(n)) for n in range(5)]
    run = at_0010.get_model("aggregation", "AggregationRun").objects.create(job=job, task_type="stance")
    Outcome = at_0010.get_model("aggregation", "ItemOutcome")
    outcomes = {
        item.key: Outcome.objects.create(item=item, job=job, run=run, label=f"L{item.key}")
        for item in (items[4], items[2], items[3])
    }
    Adjudication = at_0010.get_model("aggregation", "Adjudication")
    for key in ("2", "3"):
        Adjudication.objects.create(
            outcome=outcomes[key], job=job, new_label=f"A{key}", new_status="kept", decided_at=timezone.now()
        )

    after = migrated(("aggregation", "0012_outcome_keyed_by_item"))

    keyed = after.get_model("aggregation", "ItemOutcome").objects.order_by("pk")
    assert list(keyed.values_list("pk", "item_id", "label")) == [
        (items[n].pk, items[n].pk, f"L{n}") for n in (2, 3, 4)
    ]
    adjudications = after.get_model("aggregation", "Adjudication").objects.order_by("new_label")
    assert list(adjudications.values_list("outcome__label", "outcome_id")) == [
        ("L2", items[2].pk),
        ("L3", items[3].pk),
    ]

    back = migrated(("aggregation", "0011_outcome_counts_integer_array"))

    adjudications = back.get_model("aggregation", "Adjudication").objects.order_by("new_label")
    assert list(adjudications.values_list("outcome__label", "outcome__item_id")) == [
        ("L2", items[2].pk),
        ("L3", items[3].pk),
    ]
