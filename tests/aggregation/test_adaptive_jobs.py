"""Adaptive redundancy as a job policy (issue 29, item 2), on the simulated market."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse

from aggregation.adaptive_rounds import adaptive_summary, next_round, open_item_ids
from annotation.models import Hit, Job, JobState
from annotation.redundancy import AdaptivePolicy
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.records import counted_responses
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db
# With the paper's rule deciding (the default), 3 of 4: a 3–0 item is settled (one more label cannot
# overturn it), a 2–1 one is open.
ADAPTIVE = {"redundancy": "adaptive", "min_workers": 3, "max_workers": 4, "stop_posterior": 0.95}


def adaptive_job(**extra: Any) -> Job:
    claims = make_corpus(claims=8, perspectives=3)
    params = {"crowd": {"size": 12, "spammer_share": 0.2, "seed": 11}, **ADAPTIVE}
    return create_job(
        "stance", {"claims": [c.cid for c in claims]}, market="simulated", params=params, **extra
    )


def answered_per_item(job: Job) -> Counter[int]:
    return Counter(counted_responses(job).values_list("item_id", flat=True))


def test_the_first_round_asks_min_workers_of_every_item():
    job = adaptive_job()
    assert job.workers_per_item == 3
    assert set(job.hits.values_list("assignments_wanted", flat=True)) == {3}


def test_a_job_with_impossible_adaptive_numbers_is_refused():
    with pytest.raises(JobError, match="max_workers"):
        create_job(
            "stance",
            {"claims": [c.cid for c in make_corpus(claims=1, perspectives=1)]},
            params={**ADAPTIVE, "max_workers": 2},
        )


def test_after_the_first_round_only_the_open_items_get_new_hits(django_capture_on_commit_callbacks):
    job = adaptive_job()
    publish_job(job.pk)
    first_round = set(job.hits.values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=False):
        sync_job(job.pk)  # the round completes; its next round is decided below, by hand
    job.refresh_from_db()
    assert job.state == JobState.COMPLETE
    wanted = set(open_item_ids(job, AdaptivePolicy(3, 4, 0.95)))
    assert 0 < len(wanted) < job.items.filter(is_gold=False).count()
    report = next_round(job.pk)
    new_hits = Hit.objects.filter(job=job).exclude(pk__in=first_round)
    assert report.open_items == len(wanted) and report.new_hits == new_hits.count()
    assert set(new_hits.values_list("items", flat=True)) == wanted
    assert set(new_hits.values_list("assignments_wanted", flat=True)) == {1}
    assert all(hit.external_id for hit in new_hits)  # published through the market
    job.refresh_from_db()
    assert job.state == JobState.COLLECTING


def test_an_adaptive_job_runs_round_after_round_until_nothing_is_open(django_capture_on_commit_callbacks):
    job = adaptive_job()
    publish_job(job.pk)
    for _ in range(4):  # at most max_workers − min_workers + 1 rounds
        with django_capture_on_commit_callbacks(execute=True):
            sync_job(job.pk)
    job.refresh_from_db()
    answered = answered_per_item(job)
    assert job.state == JobState.COMPLETE and job.aggregation_runs.filter(state="done").exists()
    assert min(answered.values()) == 3 and max(answered.values()) == 4
    assert sum(answered.values()) < 4 * len(answered)


def test_a_round_beyond_the_budget_cap_publishes_nothing(django_capture_on_commit_callbacks):
    job = adaptive_job()
    publish_job(job.pk)
    with django_capture_on_commit_callbacks(execute=False):
        sync_job(job.pk)
    hits_before = job.hits.count()
    Job.objects.filter(pk=job.pk).update(budget=Decimal("0.01"))
    report = next_round(job.pk)
    assert report.new_hits == 0 and report.open_items > 0 and "budget" in report.refused
    assert job.hits.count() == hits_before


def test_the_dashboard_shows_labels_per_item_and_the_money_saved(
    admin_client, django_capture_on_commit_callbacks
):
    job = adaptive_job()
    publish_job(job.pk)
    for _ in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            sync_job(job.pk)
    summary = adaptive_summary(job)
    assert summary is not None and summary.labels_saved == 4 * summary.items - summary.labels > 0
    html = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    assert "Adaptive redundancy" in html and "Saved against 4 workers per item" in html
    assert f"{summary.labels_saved} labels" in html


def test_the_money_saved_is_in_the_currency_the_job_was_booked_in():
    job = adaptive_job()
    # The job's currency field is the one its ledger rows use; its parameters are only what was asked.
    Job.objects.filter(pk=job.pk).update(currency="GBP")
    job.refresh_from_db()
    summary = adaptive_summary(job)
    assert summary is not None and summary.currency == "GBP"
