"""The crowd label model's posteriors calibrated where people know the answer (issue 46, item 3): on a
job's gold and adjudicated items, cross-fitted as a machine's scores are, with the ECE as they are and
once calibrated on the job's dashboard."""

from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from aggregation import services
from aggregation.adjudication import adjudicate
from aggregation.calibration import calibration_error
from aggregation.models import ItemOutcome
from aggregation.posterior_calibration import job_posterior_calibration
from annotation.models import Job
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, U = "SUPPORT", "UNDERMINE"


def split_job(gold: int = 0) -> Job:
    """Sixteen items, three people each, split two to one on most; the first `gold` items are gold,
    their known answer the minority's."""
    job = stance_job(make_corpus(claims=4, perspectives=4))
    for item in job.items.order_by("pk")[:gold]:
        item.is_gold, item.known_answer = True, U
        item.save(update_fields=["is_gold", "known_answer"])
    votes = [(S, S, U), (S, S, S), (U, U, S), (S, U, U)]
    answer(job, {key: list(votes[n % 4]) for n, key in enumerate(keys(job))})
    services.aggregate_job(job.pk)
    return job


def adjudicated(job: Job, count: int, label: str = U) -> dict[int, str]:
    expert = User.objects.get_or_create(username="expert")[0]
    chosen = ItemOutcome.objects.filter(job=job, item__is_gold=False).order_by("pk")[:count]
    for outcome in chosen:
        adjudicate(outcome.pk, label, user=expert)
    return {outcome.pk: label for outcome in chosen}


def test_too_few_known_answers_are_said_not_to_be_enough(admin_client) -> None:
    job = split_job()
    adjudicated(job, 3)

    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    said = "not measured: 3 items whose answer people know (0 gold, 3 adjudicated); at least 10 are needed"
    assert said in page


def test_the_posteriors_are_measured_on_gold_and_adjudicated_items_as_they_are_and_calibrated(
    admin_client,
) -> None:
    job = split_job(gold=4)
    truth = adjudicated(job, 8)
    truth.update(
        dict(ItemOutcome.objects.filter(job=job, item__is_gold=True).values_list("pk", "reference_label"))
    )
    outcomes = ItemOutcome.objects.filter(pk__in=list(truth)).order_by("pk")
    confidence = np.array([outcome.model_confidence for outcome in outcomes])
    right = np.array([float(outcome.model_label == truth[outcome.pk]) for outcome in outcomes])

    found = job_posterior_calibration(job)
    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    assert found is not None and (found.gold, found.adjudicated) == (4, 8)
    assert found.ece == pytest.approx(calibration_error(confidence, right))
    assert 0 <= found.ece_calibrated <= 1
    assert f"ECE {found.ece:.3f} as they are, {found.ece_calibrated:.3f} once calibrated" in page
    assert "on 12 items whose answer people know (4 gold, 8 adjudicated)" in page


def test_a_job_without_known_answers_shows_no_calibration(admin_client) -> None:
    job = split_job()

    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    assert job_posterior_calibration(job) is None and 'id="posterior-calibration"' not in page
