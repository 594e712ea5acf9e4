"""Pipeline runs in the admin: created with every step pending, bad parameters refused, continued."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from pipeline.definition import STEPS
from pipeline.models import PipelineRun, StepState

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    return client


def test_adding_a_run_in_the_admin_creates_every_step_pending(staff: Client) -> None:
    response = staff.post(
        "/admin/pipeline/pipelinerun/add/", {"name": "in-house run", "params": '{"market": "inhouse"}'}
    )
    assert response.status_code == 302
    run = PipelineRun.objects.get(name="in-house run")
    assert not run.simulated
    assert run.params["crowd"]["size"] == 12  # the defaults are merged in
    assert set(run.steps.values_list("state", flat=True)) == {StepState.PENDING}
    assert run.steps.count() == len(STEPS)


def test_a_misspelt_parameter_is_refused_in_the_form(staff: Client) -> None:
    response = staff.post("/admin/pipeline/pipelinerun/add/", {"name": "typo", "params": '{"provders": "x"}'})
    assert response.status_code == 200
    assert "unknown pipeline parameter" in response.content.decode()
    assert not PipelineRun.objects.exists()


def test_the_run_page_lists_its_steps(staff: Client) -> None:
    staff.post("/admin/pipeline/pipelinerun/add/", {"name": "r", "params": "{}"})
    run = PipelineRun.objects.get()
    page = staff.get(f"/admin/pipeline/pipelinerun/{run.pk}/change/").content.decode()
    assert "Stance verification" in page
    titles = [step.title for step in STEPS]
    assert not [title for title in titles if re.match(r"\d", title) or "/" in title]
    assert [page.index(f"<p>{title}</p>") for title in titles] == sorted(
        page.index(f"<p>{title}</p>") for title in titles
    )  # each step once, in the order they run, by its name alone (no paper numbering such as 2b, 2b)
    assert staff.get("/admin/pipeline/pipelinerun/").status_code == 200


def test_a_finished_run_is_read_only(staff: Client) -> None:
    staff.post("/admin/pipeline/pipelinerun/add/", {"name": "r", "params": "{}"})
    run = PipelineRun.objects.get()
    run.steps.update(state=StepState.DONE)
    url = f"/admin/pipeline/pipelinerun/{run.pk}/change/"

    page = staff.get(url).content.decode()

    assert 'name="_save"' not in page and "_addanother" not in page and "/delete/" not in page
    assert staff.post(url, {"name": "renamed", "params": "{}"}).status_code == 403
    assert '{"' not in page.split('id="content"')[1]  # its parameters as a table, not JSON
    assert PipelineRun.objects.get().name == "r"
