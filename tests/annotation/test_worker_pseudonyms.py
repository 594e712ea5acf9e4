"""A worker named by their keyed pseudonym is found through an index, not by hashing every worker."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.models import Worker
from annotation.work.assignments import get_worker
from annotation.work.pseudonyms import pseudonym
from annotation.work.records import (
    fill_worker_pseudonyms,
    pseudonym_key,
    worker_by_pseudonym,
    worker_pseudonym,
)

pytestmark = pytest.mark.django_db
KEY = "pseudonym-index-tests-key-0123456789"


@pytest.fixture
def keyed(settings: Any) -> None:
    settings.WORKER_PSEUDONYM_KEY = KEY


def test_a_new_worker_stores_the_pseudonym_it_always_had(keyed: None) -> None:
    worker = get_worker("prolific", "5f1e0c0d0b0a090807060504")

    worker.refresh_from_db()
    assert worker.pseudonym == worker_pseudonym(worker)
    assert worker.pseudonym == pseudonym("prolific", "5f1e0c0d0b0a090807060504", KEY.encode())


def test_finding_a_worker_by_pseudonym_is_one_query(keyed: None, django_assert_num_queries: Any) -> None:
    workers = [Worker.objects.create(market="mturk", external_id=f"A{n:013d}") for n in range(50)]
    name = worker_pseudonym(workers[17])

    with django_assert_num_queries(1):
        found = worker_by_pseudonym(name)

    assert found == workers[17]
    with django_assert_num_queries(1):
        assert worker_by_pseudonym("w_" + "0" * 20) is None


def test_existing_workers_are_filled_with_their_unchanged_pseudonyms(keyed: None) -> None:
    workers = [Worker.objects.create(market="mturk", external_id=f"A{n:013d}") for n in range(5)]
    before = {w.pk: worker_pseudonym(w) for w in workers}
    Worker.objects.update(pseudonym=None)  # as before the column existed

    assert fill_worker_pseudonyms(batch=2) == 5

    assert dict(Worker.objects.values_list("pk", "pseudonym")) == before
    assert all(worker_by_pseudonym(name).pk == pk for pk, name in before.items())  # type: ignore[union-attr]
    assert fill_worker_pseudonyms() == 0


def test_a_pseudonym_stored_under_an_earlier_key_names_nobody(keyed: None, settings: Any) -> None:
    worker = Worker.objects.create(market="mturk", external_id="A0000000000001")
    old = str(worker.pseudonym)
    settings.WORKER_PSEUDONYM_KEY = "another-pseudonym-key-0123456789"

    assert worker_by_pseudonym(old) is None
    Worker.objects.update(pseudonym=None)
    fill_worker_pseudonyms()
    assert worker_by_pseudonym(worker_pseudonym(worker)) == worker


def test_without_a_key_a_worker_is_still_created_and_named_once_a_key_is_set(settings: Any) -> None:
    settings.WORKER_PSEUDONYM_KEY, settings.DEBUG = "", False
    worker = Worker.objects.create(market="mturk", external_id="A0000000000002")
    assert worker.pseudonym is None

    settings.WORKER_PSEUDONYM_KEY = KEY
    fill_worker_pseudonyms()
    assert worker_by_pseudonym(pseudonym("mturk", "A0000000000002", pseudonym_key())) == worker
