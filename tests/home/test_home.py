"""The staff home page at `/`: what needs a person now with links to act on it, then what happened
lately; annotators go to their queue; people land where they belong after logging in and out."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from aggregation import services
from aggregation.models import AggregationRun, RunState
from annotation.ledger.models import LedgerEntry, RowState
from annotation.models import JobState
from crawler.models import CrawlRun, RunStatus
from operations.models import Operation, OperationState
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password"


def researcher() -> User:
    person = User.objects.create_user("lead", password=PASSWORD, is_staff=True)
    person.groups.set(Group.objects.filter(name__in=["researcher", "adjudicator", "approver"]))
    return person


def contested_job() -> Any:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, {key: ["SUPPORT", "UNDERMINE", "NOT_VALID"] for key in keys(job)})  # every item tied
    services.aggregate_job(job.pk)
    return job


def test_staff_see_what_needs_them_each_with_a_link_to_act_on_it(client: Client) -> None:
    job = contested_job()
    LedgerEntry.objects.create(
        kind="bonus", market="mturk", job=job, amount="287.78", token="t-1", intent="i-1",
        state=RowState.UNCLEAR, error="timed out after sending",
    )  # fmt: skip
    Operation.objects.create(
        kind="annotation.publish_jobs", label="Publish job 9", state=OperationState.FAILED,
        error="the market refused the HIT type",
    )  # fmt: skip
    crawl = CrawlRun.objects.create(site="idebate", status=RunStatus.RUNNING, pages=12, items=3)
    client.force_login(researcher())

    page = client.get("/")
    text = page.content.decode()

    assert page.status_code == 200
    assert "Contested items waiting for an expert" in text
    assert f'href="{reverse("aggregation:adjudicate", args=[job.pk])}"' in text
    assert "4 items" in text  # the two claims' four tied perspectives
    assert "287.78 USD" in text and "timed out after sending" in text
    assert "Publish job 9" in text and "the market refused the HIT type" in text
    assert f'href="{reverse("admin:crawler_crawlrun_change", args=[crawl.pk])}"' in text
    assert 'class="field-pages">12<' in text  # the cell the live counts refresh
    assert reverse("admin:crawler_crawlrun_live") in text
    assert f'href="{reverse("aggregation:dashboard", args=[job.pk])}"' in text
    assert f'href="{reverse("admin:index")}"' in text  # the home page links to the admin


def test_a_job_collecting_shows_its_progress_and_its_pages(client: Client) -> None:
    job = stance_job(make_corpus(claims=2, perspectives=1))
    type(job).objects.filter(pk=job.pk).update(state=JobState.COLLECTING)
    client.force_login(researcher())

    text = client.get("/").content.decode()

    section = text.split('id="needs-collecting"')[1].split("</section>")[0]
    assert "0 of " in section and "0 responses" in section
    assert reverse("aggregation:dashboard", args=[job.pk]) in section
    assert (
        reverse("aggregation:adjudicate", args=[job.pk]) not in section
    )  # never aggregated: nothing to adjudicate


def test_a_failed_aggregation_is_on_the_home_page_with_its_reason(client: Client) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1))
    answer(job, {key: ["SUPPORT"] for key in keys(job)})  # one rater: agreement cannot be computed
    with pytest.raises(services.AggregationError):
        services.aggregate_job(job.pk)
    client.force_login(researcher())

    section = client.get("/").content.decode().split('id="needs-failed"')[1].split("</section>")[0]

    assert f"aggregation of job {job.pk}" in section and "single rater" in section


def test_a_section_needs_its_permission(client: Client) -> None:
    contested_job()
    client.force_login(User.objects.create_user("bare", password=PASSWORD, is_staff=True))

    text = client.get("/").content.decode()

    assert "Contested items" not in text and "Recent jobs" not in text


def test_annotators_at_the_root_go_to_their_queue_and_strangers_to_the_login(client: Client) -> None:
    assert client.get("/")["Location"].startswith(reverse("annotation:login"))
    client.force_login(User.objects.create_user("ann", password=PASSWORD))
    assert client.get("/")["Location"] == reverse("annotation:queue")


@pytest.mark.parametrize(("staff", "landing"), [(True, "/"), (False, "/annotate/")])
def test_logging_in_and_out_lands_where_the_person_belongs(client: Client, staff: bool, landing: str) -> None:
    User.objects.create_user("person", password=PASSWORD, is_staff=staff)
    login = reverse("annotation:login")

    landed = client.post(login, {"username": "person", "password": PASSWORD}, follow=True)
    assert landed.redirect_chain[-1][0] == landing and landed.status_code == 200

    out = client.post(reverse("annotation:logout"), follow=True)
    assert out.status_code == 200 and out.request["PATH_INFO"] == login
    again = client.post(login, {"username": "person", "password": PASSWORD}, follow=True)
    assert "/accounts/profile/" not in [url for url, _ in again.redirect_chain]
    assert again.redirect_chain[-1][0] == landing


def test_the_admin_is_stancework_and_view_site_goes_home(client: Client) -> None:
    client.force_login(User.objects.create_superuser("root", password=PASSWORD))
    text = client.get(reverse("admin:index")).content.decode()
    assert "Stancework" in text and "Django administration" not in text
    assert '<a href="/">View site</a>' in text
    after = client.post(reverse("admin:logout"), follow=True)
    assert after.redirect_chain[0][0] == "/"


def test_a_failed_aggregation_shows_on_the_dashboard_with_what_to_do(client: Client) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1), workers_per_item=1)
    answer(job, {key: ["SUPPORT"] for key in keys(job)})
    with pytest.raises(services.AggregationError):
        services.aggregate_job(job.pk)
    client.force_login(researcher())

    text = client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    assert "Not aggregated yet" not in text
    assert "The latest aggregation failed" in text and "single rater" in text
    assert "What to do: Every item has answers from one worker only" in text
    assert AggregationRun.objects.get(job=job).state == RunState.FAILED


def test_a_writing_job_says_it_is_not_aggregated_rather_than_not_yet(client: Client) -> None:
    from annotation.work.jobs import create_job

    make_corpus(claims=2, perspectives=1)
    job = create_job("paraphrase_writing", {"limit": 1})
    client.force_login(researcher())

    text = client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    assert "Not aggregated yet" not in text
    assert "Not aggregated: Paraphrase writing answers are written text" in text
    assert reverse("admin:annotation_job_change", args=[job.pk]) in text  # the dashboard links its job
