"""An item deleted on its own while its job is being aggregated waits for the aggregation's lock and
then takes the outcome the aggregation wrote for it: the database checks no outcome's key, so nothing
else would. On real PostgreSQL connections, the aggregation held open between its write and commit."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from aggregation import services, storing
from aggregation.models import ItemOutcome
from aggregation.outcome_columns import OutcomeColumns
from annotation.models import Item
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_an_item_deleted_during_its_jobs_aggregation_waits_for_it_and_leaves_no_outcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [["SUPPORT"] * 3, ["UNDERMINE"] * 3] * 2, strict=True)))
    item = job.items.order_by("pk").first()
    written, release, deleted = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def held_open(job: Any, run: Any, columns: OutcomeColumns, job_items: Any) -> storing.Stored:
        stored = storing.store_outcomes(job, run, columns, job_items)  # a first run: every outcome, by COPY
        written.set()
        release.wait(10)
        return stored

    def aggregate() -> None:
        try:
            services.aggregate_job(job.pk)
        except BaseException as error:  # re-raised below through the assertion on errors
            errors.append(error)
        finally:
            connection.close()

    def delete() -> None:
        try:
            written.wait(10)
            Item.objects.get(pk=item.pk).delete()
            deleted.set()
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    monkeypatch.setattr(services, "store_outcomes", held_open)
    threads = [threading.Thread(target=aggregate), threading.Thread(target=delete)]
    for thread in threads:
        thread.start()
    waited = not deleted.wait(1.5)  # the deletion waits while the aggregation holds the job's lock
    release.set()
    for thread in threads:
        thread.join(20)

    assert errors == [] and waited and deleted.is_set()
    assert not ItemOutcome.objects.filter(item_id=item.pk).exists()
    assert ItemOutcome.objects.filter(job=job).count() == len(keys(job)) == 3
