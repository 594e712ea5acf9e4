"""The pipeline's counter-speech step on a crawled idebate debate, with the simulated crowd."""

from __future__ import annotations

import pytest

from annotation.models import Job, JobState
from annotation.work.accuracy import job_accuracy
from corpus.models import Claim
from crawler.models import Point
from pipeline import services
from pipeline.counter_speeches import counter_speech_questions
from pipeline.definition import STEPS
from pipeline.models import StepState
from tests.annotation.factories import crawled_counter_speech_questions

pytestmark = pytest.mark.django_db


@pytest.fixture
def crawled_claim(settings: pytest.FixtureRequest) -> int:
    settings.WORKER_PSEUDONYM_KEY = "pipeline-tests-pseudonym-key-0123456789"  # type: ignore[attr-defined]
    crawled_counter_speech_questions()
    return Claim.objects.get(source="idebate").cid


def test_each_question_holds_its_points_counterpoint_and_others_of_the_same_side(
    crawled_claim: int,
) -> None:
    questions = counter_speech_questions([crawled_claim], limit=100, seed=0)

    points = Point.objects.filter(current=True).exclude(counterpoint=[])
    assert len(questions) == points.count()
    for question in questions:
        side = question["key"].rsplit("-", 1)[1][:3]
        own = "\n\n".join(
            points.get(side=side, position=int(question["key"].rsplit("-", 1)[1][3:])).counterpoint
        )
        same_side = {"\n\n".join(p.counterpoint) for p in points.filter(side=side)}
        assert question["candidates"][question["answer"]] == own
        assert 3 <= len(question["candidates"]) <= 5
        assert set(question["candidates"]) <= same_side
        assert question["cid"] == crawled_claim


def test_the_number_of_questions_is_bounded_and_shared_between_the_sides(crawled_claim: int) -> None:
    questions = counter_speech_questions([crawled_claim], limit=4, seed=0)
    assert len(questions) == 4
    assert {q["key"].rsplit("-", 1)[1][:3] for q in questions} == {"pro", "con"}


def test_the_step_runs_after_evidence_with_a_simulated_crowd_and_reports_accuracy(
    crawled_claim: int,
) -> None:
    run = services.create_run(
        "test",
        {
            "claims": [crawled_claim],
            "counter_speech_questions": 6,
            "crowd": {"size": 6, "seed": 1},
            "version": "cs-step",
        },
    )

    steps = services.run_all(run.pk)

    names = [step.name for step in steps]
    assert names.index("counter_speech") == names.index("evidence") + 1
    assert all(step.state == StepState.DONE for step in steps), [(s.name, s.message) for s in steps]
    step = run.steps.get(name="counter_speech")
    job = Job.objects.get(pk=step.output["jobs"]["counter_speech"])
    assert (job.task_type, job.state, job.items.count()) == ("counter_speech", JobState.COMPLETE, 6)
    found = job_accuracy(job.pk)
    assert f"{found.overall.correct}/{found.overall.answered} answers correct" in step.message
    assert "the simulated market pays no bonuses" in step.message


def test_without_crawled_points_the_step_has_nothing_to_annotate() -> None:
    assert counter_speech_questions([12345], limit=10, seed=0) == []


def test_a_run_made_before_the_step_existed_goes_on_without_it(crawled_claim: int) -> None:
    run = services.create_run(
        "test", {"claims": [crawled_claim], "crowd": {"size": 6, "seed": 1}, "version": "cs-old-run"}
    )
    run.steps.filter(name="counter_speech").delete()

    steps = services.run_all(run.pk)

    assert "counter_speech" not in [step.name for step in steps]
    assert all(step.state == StepState.DONE for step in steps) and len(steps) == len(STEPS) - 1
    with pytest.raises(services.PipelineError, match="made before the step existed"):
        services.run_step(run.pk, "counter_speech")
