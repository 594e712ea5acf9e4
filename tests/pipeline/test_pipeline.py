"""A pipeline run over given claims with the simulated crowd: every step done, resumable, a valid release."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from django.conf import settings

from annotation.models import Job, JobState
from corpus.models import Claim, ClusterEvidence, Evidence, Origin, Perspective, PerspectiveCluster, Status
from export.models import Release
from export.verify import verify_release
from pipeline import services
from pipeline.definition import DEFAULTS, STEPS
from pipeline.models import StepState
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_params(tmp_path: Path, settings: pytest.FixtureRequest) -> dict:
    settings.WORKER_PSEUDONYM_KEY = "pipeline-tests-pseudonym-key-0123456789"  # type: ignore[attr-defined]
    # Each run releases "test-1": into a folder of its own, so no test meets another's release.
    settings.RELEASES_DIR = tmp_path / "releases"  # type: ignore[attr-defined]
    claims = make_corpus(claims=6, perspectives=4)
    for number, cluster in enumerate(PerspectiveCluster.objects.order_by("pk")):
        evidence = Evidence.objects.create(
            eid=9000 + number,
            text=f"A paragraph that argues the point at length, number {number}.",
            source="test",
        )
        ClusterEvidence.objects.create(cluster=cluster, evidence=evidence, position=0)
    web = tmp_path / "web.jsonl"
    web.write_text(
        '{"url": "https://example.org/w", "title": "", "text": "Public money should fund research that '
        'benefits everyone in society. Critics say private firms innovate faster than any state agency."}\n'
    )
    return {
        "claims": [claim.cid for claim in claims],
        "crowd": {"size": 9, "spammer_share": 0.2, "seed": 1},
        "web_source_file": str(web),
        "adjudication_sample": 5,
        "similar_claim_pairs": 5,
        "version": "test-1",
    }


def test_a_simulated_run_goes_through_every_step_to_a_valid_release(run_params: dict) -> None:
    released_before = Claim.objects.get(cid=run_params["claims"][0])
    released_before.split = "test"
    released_before.save()
    run = services.create_run("test", run_params)

    steps = services.run_all(run.pk)

    assert [s.state for s in steps] == [StepState.DONE] * len(STEPS), [(s.name, s.message) for s in steps]
    assert run.simulated
    jobs = Job.objects.filter(pipeline_steps__run=run)
    assert set(jobs.values_list("task_type", flat=True)) == {
        "stance", "paraphrase_writing", "paraphrase_verification", "evidence_verification", "topic_tagging",
        "vast_stance",
    }  # fmt: skip
    assert all(job.state == JobState.COMPLETE for job in jobs)
    vast = jobs.get(task_type="vast_stance")  # comments of the first claims, with their tagged topics
    vast_claims = {item.claim.cid for item in vast.items.select_related("claim")}
    assert vast_claims and vast_claims <= set(run_params["claims"][: DEFAULTS["vast_claims"]])
    vast_step = next(s for s in steps if s.name == "vast")
    vast_csv = pd.read_csv(vast_step.output["vast_csv"])
    assert len(vast_csv) == vast_step.output["vast_rows"] > 0 and set(vast_csv["simulated"]) == {1}
    assert Perspective.objects.filter(origin=Origin.PARAPHRASE).exists()
    assert Perspective.objects.filter(origin=Origin.WEB).exists()
    assert Claim.objects.get(pk=released_before.pk).split == "test"  # an earlier release's split stays
    assert not Claim.objects.filter(cid__in=run_params["claims"], split="").exists()
    release = Release.objects.get(version="test-1")
    assert verify_release(Path(settings.RELEASES_DIR) / release.directory) == []
    manifest = json.loads((Path(settings.RELEASES_DIR) / release.directory / "manifest.json").read_text())
    assert manifest["candidate_rankings"] == ["bm25"]  # the paraphrase hints and evidence candidates


def test_running_a_step_again_reuses_its_job(run_params: dict) -> None:
    run = services.create_run("test", run_params)
    services.run_step(run.pk, "crawl")
    first = services.run_step(run.pk, "stance")
    stance_job = first.output["jobs"]["stance"]
    first.state = StepState.WAITING
    first.save()

    again = services.run_step(run.pk, "stance")

    assert again.state == StepState.DONE
    assert again.output["jobs"]["stance"] == stance_job
    assert Job.objects.filter(task_type="stance").count() == 1


def test_a_step_waits_for_the_one_before_it(run_params: dict) -> None:
    run = services.create_run("test", run_params)
    with pytest.raises(services.PipelineError, match="step evidence waits for crawl"):
        services.run_step(run.pk, "evidence")


def test_a_real_crowd_leaves_the_step_waiting_with_its_progress(run_params: dict) -> None:
    run = services.create_run("test", {**run_params, "market": "inhouse"})
    services.run_step(run.pk, "crawl")

    step = services.run_step(run.pk, "stance")

    assert step.state == StepState.WAITING
    assert "0/" in step.message
    assert not run.simulated
    assert Status.CANDIDATE in set(
        Job.objects.get(pk=step.output["jobs"]["stance"]).items.values_list("cluster__status", flat=True)
    )


def test_the_stance_step_runs_adaptive_and_says_how_many_labels_it_saved(run_params: dict) -> None:
    from pipeline.demo import DEMO_STANCE_REDUNDANCY

    run = services.create_run("test", {**run_params, "stance_redundancy": DEMO_STANCE_REDUNDANCY})
    services.run_step(run.pk, "crawl")
    step = services.run_step(run.pk, "stance")

    job = Job.objects.get(pk=step.output["jobs"]["stance"])
    assert step.state == StepState.DONE and job.state == JobState.COMPLETE
    assert job.hits.filter(assignments_wanted=1).exists()  # a second round, over the open items only
    assert "adaptive:" in step.message and "labels saved against 4 per item" in step.message
    saved = int(step.message.split(" labels saved")[0].rsplit(" ", 1)[1])
    assert 0 < saved < job.items.filter(is_gold=False).count()
