"""MTurk templates in real Chromium: an in-house annotator answers crowd elements, and a template's
script runs only once the template is trusted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from annotation.models import Response
from annotation.work.jobs import publish_job
from annotation.work.mturk_batches import batch_results, import_mturk_template
from tests.annotation.test_browser import page  # noqa: F401  (the Chromium page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mturk"
# A button whose script copies a choice into a hidden field, as Turkle's examples do.
SCRIPTED = """<p>${text}</p><button id="pick">Pick</button><input type="hidden" name="choice">
<script>document.getElementById("pick").addEventListener("click", function () {
  document.querySelector('input[name="choice"]').value = "picked"; });</script>"""


def start_first_hit(tab: Any, live_server: Any, job_pk: int) -> None:
    User.objects.create_user("annotator", password="a-long-test-password")
    tab.goto(f"{live_server.url}/annotate/jobs/{job_pk}/")
    tab.fill("input[name=username]", "annotator")
    tab.fill("input[name=password]", "a-long-test-password")
    tab.click("button[type=submit]")
    tab.click("text=Start working")
    tab.wait_for_selector("fieldset.item")


def test_an_in_house_annotator_answers_crowd_elements_in_chromium(
    live_server: Any,
    page: Any,  # noqa: F811
    settings: Any,
) -> None:
    settings.WORKER_PSEUDONYM_KEY = "a-test-key-of-enough-length"
    job = import_mturk_template(
        FIXTURES / "stance_crowd_elements.html",
        FIXTURES / "stance_crowd_elements_batch.csv",
        "stance",
        params={"workers_per_item": 1},
    )
    publish_job(job.pk)
    start_first_hit(page, live_server, job.pk)

    page.check("input[name=radio_group_1][value=undermines]")
    page.check("input[name=topic][value=health_and_medicine]")
    page.fill("input[name=keyword]", "duty")
    page.click("#submit-hit")
    page.wait_for_selector("text=your answers are saved")

    row = batch_results(job).iloc[0]
    assert row["Input.claim"] == "Vaccination must be made compulsory"
    assert row["Answer.undermines.undermines"] == "true" and row["Answer.supports.supports"] == "false"
    assert row["Answer.topic.label"] == "health_and_medicine" and row["Answer.keyword"] == "duty"
    assert row["Answer.unclear.yes"] == "false" and row["AssignmentStatus"] == "Submitted"


@pytest.mark.parametrize(("trusted", "saved"), [(True, "picked"), (False, "")])
def test_a_templates_script_runs_only_when_trusted(
    live_server: Any,
    page: Any,  # noqa: F811
    tmp_path: Path,
    trusted: bool,
    saved: str,
) -> None:
    template, batch = tmp_path / "scripted.html", tmp_path / "batch.csv"
    template.write_text(SCRIPTED)
    batch.write_text("text\nA row of text\n")
    job = import_mturk_template(template, batch, "scripted", trusted=trusted, params={"workers_per_item": 1})
    publish_job(job.pk)
    start_first_hit(page, live_server, job.pk)

    page.click("#pick")
    page.click("#submit-hit")
    page.wait_for_selector("text=your answers are saved")

    assert Response.objects.get().value == {"choice": saved}
