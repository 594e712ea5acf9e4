"""Routing wired into a job (issue 46, item 5): people label the calibration sample first; then the items
above the threshold are the machine's, its labels standing as their decisions, and the rest go to the
crowd with the job's redundancy; with no threshold, everything goes to the crowd."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from aggregation import services
from aggregation.machine_routing import calibration_items
from aggregation.machine_training import train_local
from aggregation.models import ItemOutcome
from annotation.machines.plans import machine_plan
from annotation.models import HitItem, Job, JobState, Response, ResponseOrigin
from tests.aggregation.jobdata import answer, stance_job
from tests.aggregation.test_machine_training import AGAINST, FOR, S, U, decided_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

PLAN = {"annotator": "m", "target_error": 0.1, "confidence": 0.95, "calibration_items": 200}


@pytest.fixture(autouse=True)
def machines_in(settings: Any, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path  # the trained machines' files


def plain_job(claims: int, *, noise: int = 4) -> Job:
    """A stance job with a machine beside the crowd over perspectives that say plainly which side they
    take, but for every `noise`th, whose text says nothing; three workers per item, and each item's
    side as its known answer."""
    job = stance_job(make_corpus(claims=claims, perspectives=4), machine=PLAN, workers_per_item=3)
    for index, item in enumerate(job.items.order_by("pk")):
        side = index % 2
        plain = (FOR, AGAINST)[side][index % 3] + f" number {index}"
        text = f"words {index} {index * 7}" if index % noise == noise - 1 else plain
        item.payload, item.known_answer = {**item.payload, "perspective": text}, (S, U)[side]
        item.save(update_fields=["payload", "known_answer"])
    return job


def asked(job: Job) -> set[int]:
    return set(HitItem.objects.filter(hit__job=job).values_list("item_id", flat=True))


def crowd_answers(job: Job, items: set[int]) -> None:
    """Three people give each item its plain side; the market's sync then finds the job complete."""
    answer(
        job, {item.key: [str(item.known_answer)] * 3 for item in job.items.filter(pk__in=items)}, prefix="p"
    )
    Job.objects.filter(pk=job.pk).update(state=JobState.COMPLETE)
    services.aggregate_job(job.pk)
    job.refresh_from_db()


def test_people_label_the_calibration_sample_first_then_the_machine_takes_what_the_bound_allows() -> None:
    train_local("m", "stance", [decided_job().pk])
    job = plain_job(claims=100)
    plan = machine_plan(job.params)
    assert plan is not None
    sample = set(calibration_items(job, plan))
    assert asked(job) == sample and len(sample) == 200

    call_command("label_job", str(job.pk), stdout=StringIO())
    unanswered = sorted(set(job.items.values_list("pk", flat=True)) - sample)[::5]  # refused, say
    Response.objects.filter(job=job, origin=ResponseOrigin.MACHINE, item__in=unanswered).delete()
    crowd_answers(job, sample)
    out = StringIO()
    call_command("route_job", str(job.pk), stdout=out)
    job.refresh_from_db()

    threshold = job.params["machine_routing"]["threshold"]
    machine = Response.objects.filter(job=job, origin=ResponseOrigin.MACHINE)
    alone = set(job.items.values_list("pk", flat=True)) - asked(job)
    assert threshold is not None and len(alone) > 0, job.params["machine_routing"]["reason"]
    assert all((machine.get(item_id=item).value or {})["score"] >= threshold for item in alone)
    assert f"{len(alone)} items accepted from the machine" in out.getvalue()
    rest = asked(job) - sample
    assert len(rest) == 400 - 200 - len(alone) and set(unanswered) <= rest
    assert job.state == JobState.COLLECTING
    assert {hit.assignments_wanted for hit in job.hits.filter(items__in=rest)} == {3}

    crowd_answers(job, rest)
    decided = dict(ItemOutcome.objects.filter(job=job).values_list("item_id", "fine_label"))
    assert set(decided) == set(job.items.values_list("pk", flat=True))
    assert all(decided[item] == machine.get(item_id=item).label for item in alone)


def test_with_no_threshold_every_item_goes_to_the_crowd_and_the_job_says_why() -> None:
    train_local("m", "stance", [decided_job().pk])
    job = plain_job(claims=60, noise=1)
    call_command("label_job", str(job.pk), stdout=StringIO())
    crowd_answers(job, asked(job))

    out = StringIO()
    call_command("route_job", str(job.pk), stdout=out)
    job.refresh_from_db()

    assert job.params["machine_routing"]["threshold"] is None and job.params["machine_routing"]["reason"]
    assert asked(job) == set(job.items.values_list("pk", flat=True))
    assert "nothing is accepted from the machine" in out.getvalue()
    assert "0 items accepted from the machine; 40 items to the crowd" in out.getvalue()


def test_a_calibration_sample_as_large_as_the_job_is_refused_when_it_is_created() -> None:
    with pytest.raises(Exception, match=r"calibration_items \(200\) must be fewer than the job's 8 items"):
        stance_job(make_corpus(claims=2, perspectives=4), machine=PLAN)


def test_label_job_without_a_machine_parameter_is_a_clear_error() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2))
    with pytest.raises(CommandError, match="has no machine parameter"):
        call_command("label_job", str(job.pk))


def test_create_job_prints_the_plan_and_the_forecast_before_calibration() -> None:
    claims = make_corpus(claims=10, perspectives=4)
    out = StringIO()
    plan = json.dumps({**PLAN, "calibration_items": 10})
    cids = ",".join(str(c.cid) for c in claims)
    call_command(
        "create_job", "stance", "--claims", cids, "--workers", "3", "--param", f"machine={plan}", stdout=out
    )
    job = Job.objects.get()
    said = out.getvalue()
    assert f"job {job.pk}: 40 items in " in said and "people label 10 of the 40 items first" in said
    first = said.split("(at most ")[1].split(" ")[0]
    assert first != "0" and f"the crowd's cost is at most {Decimal(first) * 4:.2f}" in said
