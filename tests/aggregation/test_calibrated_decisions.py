"""Decisions read the crowd label model's posteriors calibrated where people know the answer (issue
46, item 3): an overconfident label model's raw posterior passes ``min_posterior``, ``stop_posterior``
and the bulk acceptance's threshold, its calibrated one does not, so nothing is accepted on it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.html import escape

from aggregation import services
from aggregation.adaptive_rounds import open_item_ids
from aggregation.adjudication import accept_model_labels, adjudication_queue
from aggregation.models import Adjudication, ItemOutcome
from aggregation.posterior_calibration import known_for_decisions, stored_decision_posteriors
from aggregation.posterior_decisions import TASK_TYPE
from annotation.models import Job
from annotation.redundancy import AdaptivePolicy
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, U = "SUPPORT", "UNDERMINE"


def overconfident_job(gold: int = 12, votes: tuple[str, ...] = (S, S, S), **params: object) -> Job:
    """24 items, each given ``votes`` by three people (so the label model is sure of SUPPORT); the first
    ``gold`` items are gold, and on every other one of them people know the answer is UNDERMINE."""
    job = stance_job(make_corpus(claims=6, perspectives=4), **params)
    for n, item in enumerate(job.items.order_by("pk")[:gold]):
        item.is_gold, item.known_answer = True, (S, U)[n % 2]
        item.save(update_fields=["is_gold", "known_answer"])
    answer(job, {key: list(votes) for key in keys(job)})
    return job


def others(job: Job):
    return ItemOutcome.objects.filter(job=job, item__is_gold=False)


def test_an_overconfident_models_label_is_not_accepted_by_min_posterior() -> None:
    job = overconfident_job()
    services.aggregate_job(job.pk, overrides={"decide": "model", "min_posterior": 0.9})
    assert others(job).count() == 12
    for outcome in others(job):
        assert outcome.model_label == S and outcome.model_confidence >= 0.9  # the raw posterior passes
        assert outcome.status == "rejected" and outcome.contested and "low_posterior" in outcome.reasons
    assert stored_decision_posteriors(job).source == "this job"


def test_without_known_answers_min_posterior_reads_the_raw_posterior() -> None:
    job = overconfident_job(gold=0)
    services.aggregate_job(job.pk, overrides={"decide": "model", "min_posterior": 0.9})
    assert {outcome.status for outcome in others(job)} == {"kept"}
    said = stored_decision_posteriors(job).sentence()
    assert "the posteriors as they are: 0 items whose answer people know" in said


# Four labels still to come could overturn three: every item is open while its posterior is low.
ADAPTIVE = {"redundancy": "adaptive", "min_workers": 3, "max_workers": 7, "stop_posterior": 0.95}


@pytest.mark.parametrize("gold", [12, 0])
def test_stop_posterior_reads_the_calibrated_posterior(gold: int) -> None:
    job = overconfident_job(gold, **ADAPTIVE)
    services.aggregate_job(job.pk, overrides={"decide": "model"})
    assert all(outcome.model_confidence >= 0.95 for outcome in others(job))

    opened = set(open_item_ids(job, AdaptivePolicy(min_workers=3, max_workers=7, stop_posterior=0.95)))

    assert opened == (set(others(job).values_list("item_id", flat=True)) if gold else set())


def expert() -> User:
    return User.objects.get_or_create(username="expert")[0]


def test_the_bulk_acceptance_reads_the_calibrated_posterior() -> None:
    job = overconfident_job()
    services.aggregate_job(job.pk, overrides={"decide": "model", "min_posterior": 0.9})
    waiting = adjudication_queue(job)
    assert waiting.filter(item__is_gold=False).count() == 12
    assert all(outcome.model_confidence >= 0.9 for outcome in waiting)

    assert accept_model_labels(job, 0.9, user=expert()) == 0
    assert not Adjudication.objects.filter(job=job).exists()


def test_without_known_answers_the_bulk_acceptance_reads_the_raw_posterior() -> None:
    job = overconfident_job(gold=0)
    services.aggregate_job(job.pk, overrides={"decide": "model", "min_posterior": 0.99999})
    assert adjudication_queue(job).count() == 24

    assert accept_model_labels(job, 0.99, user=expert()) == 24
    note = Adjudication.objects.filter(job=job).first().note
    assert note == "model's label accepted in bulk: posterior 1.000 ≥ 0.99"  # no calibration to name


def test_a_bulk_acceptance_never_calibrates_the_posteriors() -> None:
    job = overconfident_job(gold=0)
    services.aggregate_job(job.pk, overrides={"decide": "model", "min_posterior": 0.99999})
    accept_model_labels(job, 0.99, user=expert())
    assert stored_decision_posteriors(job).items == 0


def test_the_jobs_page_says_what_the_decisions_read(admin_client) -> None:
    calibrated, raw = overconfident_job(), overconfident_job(gold=0)
    for job in (calibrated, raw):
        services.aggregate_job(job.pk, overrides={"decide": "model", "min_posterior": 0.9})
        page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
        assert escape(stored_decision_posteriors(job).sentence()) in page


def test_a_job_without_gold_is_calibrated_on_its_task_types_other_jobs_in_fixed_queries(
    django_assert_max_num_queries,
) -> None:
    for _ in range(3):
        services.aggregate_job(overconfident_job().pk, overrides={"decide": "model"})
    job = overconfident_job(gold=0)
    services.aggregate_job(job.pk, overrides={"decide": "model"})

    with django_assert_max_num_queries(8):  # the same however many other jobs
        known = known_for_decisions(job)
    assert len(known.own) == 0 and len(known.pooled_right) == 3 * 12
    assert known.pooled_right.mean() == 0.5  # sure of SUPPORT, right on half the gold
    assert stored_decision_posteriors(job).source == TASK_TYPE
