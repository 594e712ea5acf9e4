"""A job's machine routing (issue 46, item 5): the `machine` parameter checked at creation, the
calibration sample decided by the crowd first, then the threshold, ECE, forecast and reason kept on
the job (`manage.py route_job`)."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse
from django.utils.html import escape

from aggregation.machine_agreement import PEOPLE, PEOPLE_AND_MACHINES, agreement_by_origin
from aggregation.machine_routing import calibration_items, crowd_cost_per_item
from aggregation.machine_training import label_job, train_local
from annotation.machines.models import MachineAnnotator
from annotation.machines.plans import machine_plan
from annotation.work.cost_checks import estimate_cost_locally
from annotation.work.job_errors import JobError
from tests.aggregation.jobdata import stance_job
from tests.aggregation.test_machine_training import decided_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

PLAN = {"annotator": "m", "target_error": 0.1, "confidence": 0.95, "calibration_items": 20}


@pytest.fixture(autouse=True)
def var_dir(tmp_path: Path) -> Iterator[Path]:
    with override_settings(VAR_DIR=tmp_path):
        yield tmp_path


def test_a_bad_machine_parameter_is_refused_when_the_job_is_created() -> None:
    with pytest.raises(JobError, match=r"confidence in \[0.5, 1\)"):
        stance_job(make_corpus(claims=1, perspectives=1), machine={**PLAN, "confidence": 0.05})


def test_the_calibration_sample_is_the_same_each_time_it_is_drawn() -> None:
    job = stance_job(make_corpus(claims=2, perspectives=4), machine={**PLAN, "calibration_items": 3})
    plan = machine_plan(job.params)
    assert plan is not None
    assert calibration_items(job, plan) == calibration_items(job, plan)
    assert len(calibration_items(job, plan)) == 3


def test_too_small_a_job_has_nothing_accepted_and_the_reason_is_kept_on_the_job() -> None:
    train_local("m", "stance", [decided_job().pk])
    job = decided_job(claims=6)
    job.params["machine"] = PLAN
    job.save(update_fields=["params"])
    label_job(MachineAnnotator.objects.get(), job)
    out = StringIO()
    call_command("route_job", str(job.pk), stdout=out)
    job.refresh_from_db()
    kept = job.params["machine_routing"]
    assert kept["threshold"] is None and "calibration items" in kept["reason"]
    assert kept["calibration_items"] == 20 and kept["forecast"]["share_accepted"] == "0.0"
    assert "nothing is accepted from the machine" in out.getvalue()


def test_routing_before_the_crowd_has_decided_the_sample_is_a_clear_error() -> None:
    train_local("m", "stance", [decided_job().pk])
    job = stance_job(make_corpus(claims=6, perspectives=4), machine=PLAN)
    with pytest.raises(CommandError, match="calibration items are not decided by the crowd yet"):
        call_command("route_job", str(job.pk))


def test_the_jobs_page_says_the_routing_is_not_chosen_yet(admin_client) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2), machine={**PLAN, "calibration_items": 1})
    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    assert "Machine beside the crowd" in page
    assert f"run <code>manage.py route_job {job.pk}</code>" in page


def test_the_jobs_page_shows_why_nothing_is_accepted_and_agreement_with_and_without_machines(
    admin_client,
) -> None:
    train_local("m", "stance", [decided_job().pk])
    job = decided_job(claims=6)
    job.params["machine"] = PLAN
    job.save(update_fields=["params"])
    label_job(MachineAnnotator.objects.get(), job)
    call_command("route_job", str(job.pk), stdout=StringIO())
    job.refresh_from_db()
    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    assert "nothing: " + escape(job.params["machine_routing"]["reason"]) in page
    assert "Mean ρ among people: 1.000; among people and machines:" in page
    figures = agreement_by_origin(job)
    assert (
        f"Mean ρ among people: {figures[PEOPLE].mean_rho:.3f}; "
        f"among people and machines: {figures[PEOPLE_AND_MACHINES].mean_rho:.3f}." in page
    )


def test_the_crowds_cost_per_item_is_that_of_the_items_its_hits_hold_as_the_job_was_forecast() -> None:
    """Before routing, HITs hold only the calibration sample: their worst case (fees included) is the
    crowd's cost of those items, not of the whole job's."""
    job = stance_job(make_corpus(claims=10, perspectives=4), machine={**PLAN, "calibration_items": 10})
    sample_cost = estimate_cost_locally(job).worst_case
    assert job.items.count() == 40 and job.hits.count() == 1 and sample_cost > 0

    per_item = crowd_cost_per_item(job)

    assert per_item == sample_cost / 10
    assert per_item >= job.reward * job.workers_per_item / 10  # every label of an item paid, fees on top
