"""A job from the browser: the new-job form refuses what `create_job` refuses in the same words, shows
the cost forecast before saving (keeping nothing), and the job's page starts its market actions as
background operations, each behind its named permission."""

from __future__ import annotations

from html import unescape
from io import StringIO
from typing import Any

import pandas as pd
import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import Team
from annotation.models import Job, JobState
from annotation.work.jobs import create_job, publish_job, sync_job
from export.vast_rows import COLUMNS as VAST_COLUMNS
from operations.models import Operation, OperationState
from pipeline.models import PipelineRun
from tests.annotation.factories import make_corpus, make_vast_corpus

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password"


def staff(name: str, *roles: str) -> User:
    person = User.objects.create_user(name, password=PASSWORD, is_staff=True)
    person.groups.set(Group.objects.filter(name__in=roles))
    return person


def form(**given: Any) -> dict[str, Any]:
    return {"task_type": "stance", "market": "inhouse", "redundancy": "fixed", **given}


def command_refusal(*args: str) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("create_job", *args, stdout=StringIO())
    return str(refused.value)


@pytest.mark.parametrize(
    ("fields", "args"),
    [
        ({"claims": "999"}, ["stance", "--claims", "999"]),
        ({"workers": "1"}, ["stance", "--workers", "1"]),
        ({"claims": "abc"}, ["stance", "--claims", "abc"]),
    ],
)
def test_the_form_refuses_what_the_command_refuses_in_the_same_words(
    client: Client, fields: dict[str, str], args: list[str]
) -> None:
    make_corpus(claims=2, perspectives=2)
    client.force_login(staff("lead", "researcher"))
    message = command_refusal(*args)

    page = client.post("/jobs/new/", form(action="forecast", **fields))

    assert page.status_code == 200
    assert message and message in unescape(page.content.decode())
    assert not Job.objects.exists()


def test_the_forecast_counts_and_prices_the_job_and_keeps_nothing(client: Client) -> None:
    claims = make_corpus(claims=3, perspectives=2)
    client.force_login(staff("lead", "researcher"))
    cids = ",".join(str(claim.cid) for claim in claims[:2])

    page = client.post(
        "/jobs/new/", form(action="forecast", claims=cids, workers="3", bundle="1", reward="0.50")
    )
    text = page.content.decode()

    assert page.status_code == 200
    assert "4 items in 2 HITs × 3 workers" in text
    assert "At most 3.00" in text  # 2 HITs × 3 assignments × 0.50, in-house: no fee, no bonus
    assert 'id="save-job"' in text
    assert not Job.objects.exists()


def test_saving_creates_the_draft_for_the_chosen_team_and_opens_its_page(client: Client) -> None:
    claims = make_corpus(claims=2, perspectives=2)
    team = Team.objects.create(name="course")
    client.force_login(staff("lead", "researcher"))

    saved = client.post("/jobs/new/", form(action="save", claims=str(claims[0].cid), teams=[team.pk]))

    job = Job.objects.get()
    assert saved.status_code == 302 and saved["Location"] == f"/jobs/{job.pk}/"
    assert job.state == JobState.DRAFT and list(job.teams.all()) == [team]
    assert job.items.count() == 2


def test_publishing_from_the_page_needs_the_permission_to_spend_money(client: Client) -> None:
    make_corpus(claims=1, perspectives=2)
    call_command("create_job", "stance", stdout=StringIO())
    job = Job.objects.get()
    client.force_login(staff("lead", "researcher"))

    refused = client.post(f"/jobs/{job.pk}/", {"action": "publish"})

    assert refused.status_code == 403
    assert not Operation.objects.exists()


def test_publishing_from_the_page_runs_as_an_operation_whose_progress_the_page_shows(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    make_corpus(claims=1, perspectives=2)
    call_command("create_job", "stance", stdout=StringIO())
    job = Job.objects.get()
    client.force_login(staff("boss", "researcher", "approver"))

    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(f"/jobs/{job.pk}/", {"action": "publish"})
    page = client.get(f"/jobs/{job.pk}/").content.decode()

    operation = Operation.objects.get()
    job.refresh_from_db()
    assert started.status_code == 302
    assert operation.kind == "annotation.publish_jobs" and operation.params == {"job_ids": [job.pk]}
    assert operation.state == OperationState.DONE and job.state == JobState.PUBLISHED
    assert f"publish job {job.pk}" in page and "1 of 1" in page


def test_the_home_page_leads_to_the_form_and_the_form_to_nothing_without_the_permission(
    client: Client,
) -> None:
    client.force_login(staff("approver", "approver"))
    assert client.get("/jobs/new/").status_code == 403

    client.force_login(staff("lead", "researcher"))
    assert 'href="/jobs/new/"' in client.get("/").content.decode()
    assert client.get("/jobs/new/?claims=1,2").status_code == 200


def test_a_set_of_claims_in_the_admin_leads_to_the_form_with_their_ids(client: Client) -> None:
    claims = make_corpus(claims=3, perspectives=1)
    client.force_login(staff("lead", "researcher"))
    chosen = sorted(claim.cid for claim in claims[:2])

    led = client.post(
        "/admin/corpus/claim/", {"action": "new_job", "_selected_action": [claim.pk for claim in claims[:2]]}
    )
    page = client.get(led["Location"]).content.decode()

    assert led.status_code == 302 and led["Location"].startswith("/jobs/new/?claims=")
    assert f'value="{chosen[0]},{chosen[1]}"' in page


def test_a_pipeline_runs_page_leads_to_a_new_job_over_what_its_jobs_kept(client: Client) -> None:
    make_corpus(claims=1, perspectives=2)
    call_command("create_job", "stance", stdout=StringIO())
    job = Job.objects.get()
    run = PipelineRun.objects.create(name="demo")
    run.steps.create(name="stance", position=0).jobs.add(job)
    client.force_login(staff("lead", "researcher"))

    page = client.get(f"/admin/pipeline/pipelinerun/{run.pk}/change/").content.decode()

    assert f'href="/jobs/{job.pk}/"' in page
    assert f"/jobs/new/?kept_from={job.pk}&amp;task_type=stance" in page


def test_a_vast_job_is_downloaded_from_its_page_as_the_vast_csv(client: Client) -> None:
    make_vast_corpus()
    job = create_job("vast_stance", {"status": "kept"}, market="simulated", params={"crowd": {"seed": 3}})
    publish_job(job.pk)
    sync_job(job.pk)
    client.force_login(staff("lead", "researcher"))

    page = client.get(f"/jobs/{job.pk}/").content.decode()
    download = client.get(f"/jobs/{job.pk}/download/")

    assert f'href="/jobs/{job.pk}/download/"' in page and "the VAST CSV" in page
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(StringIO(download.content.decode()), keep_default_na=False)
    assert tuple(frame.columns) == VAST_COLUMNS and len(frame) > 0


def test_a_job_that_cannot_be_exported_goes_back_to_its_page_saying_why(client: Client) -> None:
    make_vast_corpus()
    job = create_job("vast_stance", {"status": "kept"})
    client.force_login(staff("lead", "researcher"))

    answered = client.get(f"/jobs/{job.pk}/download/", follow=True)

    assert answered.redirect_chain == [(f"/jobs/{job.pk}/", 302)]
    assert "has no counted answers yet" in answered.content.decode()
