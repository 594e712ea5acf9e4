"""Pipeline runs in the admin: created with every step pending, bad parameters refused, continued."""

from __future__ import annotations

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
        "/admin/pipeline/pipelinerun/add/", {"name": "in-house run", "params": '{"provider": "inhouse"}'}
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
    assert "2a Stance verification" in page
    assert staff.get("/admin/pipeline/pipelinerun/").status_code == 200
