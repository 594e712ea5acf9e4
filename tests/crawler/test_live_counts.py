"""Live counts: the crawl admin and the pipeline run page refresh their counts while work runs."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from config.live import cell
from crawler.models import CrawlRun, RunStatus
from pipeline.models import PipelineRun, StepRun, StepState
from tests.annotation.test_browser import page  # noqa: F401  (the Chromium page fixture)

LIVE = reverse("admin:crawler_crawlrun_live")


@pytest.fixture
def running(db: None) -> CrawlRun:
    return CrawlRun.objects.create(site="idebate", status=RunStatus.RUNNING, pages=3, items=1)


@pytest.mark.django_db
def test_the_live_view_gives_each_shown_runs_counts(admin_client: Client, running: CrawlRun) -> None:
    finished = CrawlRun.objects.create(site="procon", status=RunStatus.FINISHED, pages=40, drops=2)
    data = admin_client.get(LIVE, {"ids": f"{running.pk},{finished.pk}"}).json()
    assert data["active"] is True
    assert data["cells"][cell(running.pk, "pages")] == "3"
    assert data["cells"][cell(finished.pk, "drops")] == "2"
    assert data["cells"][cell(finished.pk, "status")] == "Finished"
    only_finished = admin_client.get(LIVE, {"ids": str(finished.pk)}).json()
    assert only_finished["active"] is False  # the page stops polling


@pytest.mark.django_db
@pytest.mark.parametrize("ids", ["x", "1,,2;3", "1" * 30, ",".join(["1"] * 101), "-1", "1\x00"])
def test_hostile_ids_get_a_400(admin_client: Client, running: CrawlRun, ids: str) -> None:
    assert admin_client.get(LIVE, {"ids": ids}).status_code == 400


@pytest.mark.django_db
def test_staff_who_may_not_view_runs_get_403(client: Client, running: CrawlRun) -> None:
    client.force_login(User.objects.create_user("outsider", password="x-unused-0", is_staff=True))
    assert client.get(LIVE, {"ids": str(running.pk)}).status_code == 403
    pipeline = reverse("admin:pipeline_pipelinerun_live")
    assert client.get(pipeline, {"ids": "1"}).status_code == 403


@pytest.mark.django_db
def test_the_pipeline_live_view_gives_the_steps_states(admin_client: Client) -> None:
    run = PipelineRun.objects.create(name="demo")
    StepRun.objects.create(
        run=run, position=0, name="crawl", state=StepState.WAITING, message="crawl 4 running"
    )
    StepRun.objects.create(run=run, position=1, name="stance", state=StepState.PENDING)
    data = admin_client.get(reverse("admin:pipeline_pipelinerun_live"), {"ids": str(run.pk)}).json()
    assert data["active"] is True
    assert data["cells"]["#steps-0 td.field-message p"] == "crawl 4 running"
    assert data["cells"]["#steps-1 td.field-state p"] == "Pending"
    assert data["cells"][cell(run.pk, "progress")] == "0/2 — crawl: waiting"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_crawl_list_and_a_run_page_update_while_the_crawl_runs(
    live_server: Any,
    page: Any,  # noqa: F811
    admin_user: User,
) -> None:
    from playwright.sync_api import expect

    run = CrawlRun.objects.create(site="idebate", status=RunStatus.RUNNING, pages=3)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/crawler/crawlrun/")
    page.fill("input[name=username]", admin_user.username)
    page.fill("input[name=password]", "password")
    page.click("input[type=submit]")
    pages = page.locator(f'tr:has(input[value="{run.pk}"]) td.field-pages')
    expect(pages).to_have_text("3")

    CrawlRun.objects.filter(pk=run.pk).update(pages=17, items=5)
    expect(pages).to_have_text("17", timeout=10_000)  # no reload: the list polls

    page.goto(f"{live_server.url}/admin/crawler/crawlrun/{run.pk}/change/")
    CrawlRun.objects.filter(pk=run.pk).update(pages=25, status=RunStatus.FINISHED)
    expect(page.locator(".field-pages .readonly")).to_have_text("25", timeout=10_000)
    expect(page.locator(".field-status .readonly")).to_have_text("Finished", timeout=10_000)
