"""Admin pages name task types, pipeline steps and crawl drop reasons as a person reads them, not by
the slugs stored behind them (the click-only walk checks the demo's pages the same way)."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Qualification, Worker
from crawler.models import CrawlRun, Drop
from export.models import Release
from pipeline.models import PipelineRun, StepRun, StepState
from tests.aggregation.jobdata import stance_job
from tests.annotation.factories import make_corpus
from tests.home.test_admin_plain_words import plain_page, visible
from tests.home.walk import IDENTIFIERS, raw_output

pytestmark = pytest.mark.django_db


def test_a_workers_qualifications_name_their_task_types(admin_client: Client) -> None:
    worker = Worker.objects.create(market="simulated", external_id="sim-8", simulated=True)
    Qualification.objects.create(worker=worker, task_type="vast_stance", passed=True, score=1.0)

    page = plain_page(admin_client, f"/admin/annotation/worker/{worker.pk}/change/")

    assert raw_output(page, IDENTIFIERS) == [] and "vast_stance" not in page
    assert f"simulated worker {worker.pk} Topic + stance with correction (VAST): passed" in page


def test_a_finished_pipeline_runs_steps_are_named_as_they_read(admin_client: Client) -> None:
    run = PipelineRun.objects.create(name="demo")
    StepRun.objects.create(run=run, position=2, name="paraphrase_writing", state=StepState.DONE)
    StepRun.objects.create(run=run, position=4, name="web_perspectives", state=StepState.DONE)

    page = plain_page(admin_client, f"/admin/pipeline/pipelinerun/{run.pk}/change/")

    assert raw_output(page, IDENTIFIERS) == [] and "paraphrase_writing" not in page
    assert "Paraphrase writing (done)" in page and "Web perspectives (done)" in page


def test_crawl_drops_give_their_reasons_in_words(admin_client: Client) -> None:
    run = CrawlRun.objects.create(site="idebate", status="finished")
    url = "https://idebate.org/debatabase/health/house-would-arm"
    drop = Drop.objects.create(run=run, url=url, reason="no_points")
    Drop.objects.create(run=run, url=url + "-again", reason="duplicate_in_run")

    pages = [
        f"/admin/crawler/crawlrun/{run.pk}/change/",
        f"/admin/crawler/drop/{drop.pk}/change/",
        "/admin/crawler/drop/",
    ]
    shown = {url: plain_page(admin_client, url) for url in pages}

    assert {url: hits for url, page in shown.items() if (hits := raw_output(page, IDENTIFIERS))} == {}
    assert all("no points" in page for page in shown.values())
    assert "duplicate in run" in shown[pages[0]] and "duplicate in run" in shown[pages[2]]


def test_a_releases_admin_page_names_the_task_types_of_its_jobs(admin_client: Client) -> None:
    jobs = [{"id": 2, "task_type": "paraphrase_writing"}, {"id": 8, "task_type": "vast_stance"}]
    release = Release.objects.create(version="demo-2", directory="demo-2", manifest={"jobs": jobs})

    page = plain_page(admin_client, f"/admin/export/release/{release.pk}/change/")

    assert raw_output(page, IDENTIFIERS) == [] and "paraphrase_writing" not in page
    assert "job 2 (Paraphrase writing)" in page and "job 8 (Topic + stance with correction (VAST))" in page


def test_the_dashboards_label_models_are_offered_in_words(admin_client: Client) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1))

    html = admin_client.get(f"/aggregation/jobs/{job.pk}/").content.decode()

    assert '<option value="dawid_skene">dawid skene</option>' in html
    assert '<option value="majority_vote">majority vote</option>' in html


def test_the_new_job_page_shows_its_screening_example_in_the_box_not_the_text(admin_client: Client) -> None:
    html = admin_client.get("/jobs/new/").content.decode()

    assert raw_output(visible(html), IDENTIFIERS) == []
    assert 'placeholder="{&quot;approval_rate&quot;: {&quot;lower&quot;: 95}}"' in html
