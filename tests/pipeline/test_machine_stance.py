"""The stance step with a local machine beside the simulated crowd (issue 46): the crowd decides the
calibration sample, the machine trained on other claims' decided stances labels the job, its
threshold is chosen, and the crowd labels what it is not trusted with."""

from __future__ import annotations

from pathlib import Path

import pytest

from aggregation.models import ItemOutcome
from annotation.machines.models import MachineAnnotator
from annotation.models import Job, JobState, Response, ResponseOrigin
from corpus.models import Claim, Status
from pipeline import services
from pipeline.models import StepState
from tests.annotation.factories import make_corpus
from tests.pipeline.test_pipeline import run_params  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db

MACHINE = {
    "annotator": "local-stance",
    "target_error": 0.1,
    "confidence": 0.95,
    "calibration_items": 12,
    "train_splits": ["train"],
}


@pytest.fixture
def trained_on(settings: pytest.FixtureRequest, tmp_path: Path) -> list[Claim]:
    """Claims of the train split with kept stances, the machine's training data."""
    settings.VAR_DIR = tmp_path / "var"  # type: ignore[attr-defined]
    claims = make_corpus(claims=8, perspectives=4, status=Status.KEPT)
    Claim.objects.filter(pk__in=[claim.pk for claim in claims]).update(split="train")
    return claims


def test_the_stance_step_routes_between_a_local_machine_and_the_crowd(
    run_params: dict,  # noqa: F811
    trained_on: list[Claim],
) -> None:
    run = services.create_run("test", {**run_params, "stance_machine": MACHINE})
    services.run_step(run.pk, "crawl")

    step = services.run_step(run.pk, "stance")

    job = Job.objects.get(pk=step.output["jobs"]["stance"])
    machine = MachineAnnotator.objects.get()
    assert step.state == StepState.DONE and job.state == JobState.COMPLETE, step.message
    assert (machine.name, machine.settings["for_job"], machine.settings["examples"]) == (
        "local-stance",
        job.pk,
        32,
    )
    assert "machine local-stance v1 trained on 32 decided stances of the train split's claims" in step.message
    items = job.items.filter(is_gold=False)
    machine_labels = Response.objects.filter(job=job, origin=ResponseOrigin.MACHINE)
    assert machine_labels.count() == items.count() == 24  # no job pair was in its training
    routing = job.params["machine_routing"]
    assert routing["calibration_items"] == 12 and routing["annotator"] == "local-stance v1"
    accepted = round(routing["share_accepted"] * 12)
    crowd_labelled = (
        Response.objects.filter(job=job, origin=ResponseOrigin.CROWD).values("item_id").distinct()
    )
    assert crowd_labelled.count() == 24 - accepted
    assert ItemOutcome.objects.filter(job=job, item__is_gold=False).count() == 24


def test_the_stance_step_run_again_trains_and_routes_nothing_new(
    run_params: dict,  # noqa: F811
    trained_on: list[Claim],
) -> None:
    run = services.create_run("test", {**run_params, "stance_machine": MACHINE})
    services.run_step(run.pk, "crawl")
    first = services.run_step(run.pk, "stance")
    responses = Response.objects.count()
    first.state = StepState.WAITING
    first.save()

    again = services.run_step(run.pk, "stance")

    assert again.state == StepState.DONE and again.message == first.message
    assert MachineAnnotator.objects.count() == 1 and Response.objects.count() == responses


def test_no_pair_sharing_a_text_with_the_job_is_trained_on(
    run_params: dict,  # noqa: F811
    trained_on: list[Claim],
) -> None:
    """A crawled debate often repeats a release's claim word for word: its pairs are not learnt."""
    job_claim = Claim.objects.get(cid=run_params["claims"][0])
    Claim.objects.filter(pk=trained_on[0].pk).update(text=job_claim.text)
    run = services.create_run("test", {**run_params, "stance_machine": MACHINE})
    services.run_step(run.pk, "crawl")

    services.run_step(run.pk, "stance")

    assert MachineAnnotator.objects.get().settings["examples"] == 28
