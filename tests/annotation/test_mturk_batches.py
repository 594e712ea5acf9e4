"""MTurk templates and batches: import → workers answer on the platform's pages → batch-results CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, Permission, User
from django.core.management import CommandError, call_command
from django.test import Client, RequestFactory
from django.urls import reverse

from annotation.models import Assignment, Job, JobState, MTurkBatch, MTurkTemplate, Worker
from annotation.task_types.base import TaskTypeError
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.mturk_batches import MTurkBatchError, batch_results, import_mturk_template
from annotation.work.records import worker_pseudonym
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mturk"
EMOTION, EMOTION_BATCH = FIXTURES / "emotion_detection.html", FIXTURES / "emotion_detection_batch.csv"
CROWD, CROWD_BATCH = FIXTURES / "stance_crowd_elements.html", FIXTURES / "stance_crowd_elements_batch.csv"
CSV = {"dtype": str, "keep_default_na": False}


@pytest.fixture(autouse=True)
def pseudonym_key(settings: Any) -> None:
    settings.WORKER_PSEUDONYM_KEY = "a-test-key-of-enough-length"


def published(job: Job) -> Job:
    return publish_job(job.pk)


def annotator(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.create_user(name, password="pw-for-tests-1"))
    return client


def answer_every_row(client: Client, job: Job, answers: dict[str, str]) -> list[bytes]:
    """One in-house annotator works through the job on its worker pages; the task pages they saw."""
    pages = []
    while True:
        started = client.post(reverse("annotation:start", args=[job.pk]))
        if started.status_code != 302:
            return pages
        pages.append(client.get(started["Location"]).content)
        assert client.post(started["Location"], answers).status_code == 200


def exported(job: Job, tmp_path: Path) -> pd.DataFrame:
    out = tmp_path / "results.csv"
    call_command("export_mturk_batch", str(job.pk), "--out", str(out))
    return pd.read_csv(out, **CSV)  # type: ignore[call-overload]


def test_a_template_job_has_no_quiz_so_an_annotator_starts_at_once() -> None:
    job = published(import_mturk_template(EMOTION, EMOTION_BATCH, "emotion"))
    ann = annotator("ann")

    home = ann.get(reverse("annotation:job", args=[job.pk]))
    started = ann.post(reverse("annotation:start", args=[job.pk]))

    assert b"Start working" in home.content and b"qualification quiz" not in home.content
    assert started.status_code == 302 and Assignment.objects.count() == 1


def test_the_import_command_makes_a_draft_job_with_one_item_per_csv_row() -> None:
    call_command("import_mturk_template", str(EMOTION), str(EMOTION_BATCH), "--name", "emotion")

    job = Job.objects.get()
    rows = pd.read_csv(EMOTION_BATCH, **CSV).to_dict(orient="records")  # type: ignore[call-overload]
    assert job.state == JobState.DRAFT and job.task_type == "mturk_template"
    assert [item.payload["row"] for item in job.items.order_by("pk")] == rows
    assert job.hits.count() == len(rows) and not MTurkTemplate.objects.get().trusted


def test_an_in_house_round_trip_exports_the_rows_and_answers_with_pseudonyms(tmp_path: Path) -> None:
    job = published(import_mturk_template(CROWD, CROWD_BATCH, "stance", params={"workers_per_item": 2}))
    answers = {"radio_group_1": "neither", "topic": "education", "unclear": "on", "keyword": "duty"}
    for name in ("ann", "ben"):
        assert len(answer_every_row(annotator(name), job, {**answers, "comment": f"by {name}"})) == 3

    results = exported(job, tmp_path)

    batch = pd.read_csv(CROWD_BATCH, **CSV)  # type: ignore[call-overload]
    assert len(results) == 2 * len(batch)
    inputs = results[[f"Input.{c}" for c in batch.columns]].drop_duplicates().reset_index(drop=True)
    assert inputs.to_numpy().tolist() == batch.to_numpy().tolist()
    assert set(results["Answer.neither.neither"]) == {"true"}
    assert set(results["Answer.supports.supports"]) == {"false"}
    assert set(results["Answer.topic.label"]) == {"education"}
    assert set(results["Answer.unclear.yes"]) == {"true"} and set(results["Answer.keyword"]) == {"duty"}
    assert set(results["Answer.comment"]) == {"by ann", "by ben"}
    assert set(results["AssignmentStatus"]) == {"Submitted"}
    assert set(results["Stancework.Simulated"]) == {"false"}
    pseudonyms = {worker_pseudonym(worker) for worker in Worker.objects.all()}
    assert set(results["WorkerId"]) == pseudonyms and all(p.startswith("w_") for p in pseudonyms)
    raw_ids = {"ann", "ben", *Worker.objects.values_list("external_id", flat=True)}
    assert not set(results["WorkerId"]) & raw_ids


def test_the_export_carries_each_assignments_times_and_ids() -> None:
    job = published(import_mturk_template(EMOTION, EMOTION_BATCH, "emotion", params={"workers_per_item": 1}))
    answer_every_row(annotator("ann"), job, {"emotion": "Happiness"})

    results = batch_results(job)

    first = Assignment.objects.order_by("hit__position").first()
    assert first is not None
    row = results.iloc[0]
    assert row["AssignmentId"] == f"sw-assignment-{first.pk}" and row["HITId"] == first.hit.external_id != ""
    assert row["AcceptTime"] == first.accepted_at.strftime("%a %b %d %H:%M:%S UTC %Y")
    assert row["Input.text"] == "Being a performer limits a child’s formal education"
    assert set(results["Answer.emotion"]) == {"Happiness"} and row["Reward"] == "$0.10"


def test_a_simulated_crowd_answers_a_template_job_and_says_so(tmp_path: Path) -> None:
    job = import_mturk_template(CROWD, CROWD_BATCH, "stance", market="simulated")
    publish_job(job.pk)
    sync_job(job.pk)

    results = exported(job, tmp_path)

    assert len(results) == 3 * 3 and set(results["Stancework.Simulated"]) == {"true"}
    assert set(results["Answer.keyword"]) == {"(simulated answer)"}
    assert set(results["Answer.topic.label"]) <= {"politics", "education", "health_and_medicine"}
    chosen = results[["Answer.supports.supports", "Answer.undermines.undermines", "Answer.neither.neither"]]
    assert (chosen == "true").sum(axis=1).eq(1).all()  # one radio button of the group each time


def test_an_untrusted_templates_page_runs_no_script(client: Client) -> None:
    job = published(import_mturk_template(EMOTION, EMOTION_BATCH, "emotion"))
    ann = annotator("ann")
    page = ann.get(ann.post(reverse("annotation:start", args=[job.pk]))["Location"])

    assert b"<script" not in page.content and b"$(document).ready" not in page.content
    assert "script-src 'none'" in page["Content-Security-Policy"]
    assert b'name="emotion"' in page.content and b"Being a performer" in page.content


def test_a_trusted_templates_page_keeps_its_script() -> None:
    job = published(import_mturk_template(EMOTION, EMOTION_BATCH, "emotion", trusted=True))
    ann = annotator("ann")
    page = ann.get(ann.post(reverse("annotation:start", args=[job.pk]))["Location"])

    assert b"$(document).ready" in page.content and b"code.jquery.com" in page.content
    assert "script-src" not in page["Content-Security-Policy"]


def test_preview_shows_the_first_row_sanitised(previewer: Client) -> None:
    job = published(import_mturk_template(CROWD, CROWD_BATCH, "stance"))

    page = previewer.get(reverse("annotation:job", args=[job.pk]) + "?preview=1")

    assert page.status_code == 200 and b"Vaccination must be made compulsory" in page.content
    assert b"javascript:" not in page.content and b"onclick" not in page.content


@pytest.mark.parametrize(
    ("batch", "error"),
    [
        ("text\n", "has a header but no rows"),
        ("text,text\na,b\n", "column names repeat"),
        ("words\nhello\n", r"reads \$\{text\}, but the batch has no such column"),
    ],
)
def test_a_batch_that_does_not_fit_is_a_command_error(tmp_path: Path, batch: str, error: str) -> None:
    path = tmp_path / "batch.csv"
    path.write_text(batch)

    with pytest.raises(CommandError, match=error):
        call_command("import_mturk_template", str(EMOTION), str(path), "--name", "emotion")
    assert not Job.objects.exists()


def test_a_different_template_under_a_taken_name_is_refused(tmp_path: Path) -> None:
    import_mturk_template(EMOTION, EMOTION_BATCH, "emotion")

    with pytest.raises(MTurkBatchError, match="already stored as 'emotion'"):
        import_mturk_template(CROWD, CROWD_BATCH, "emotion")
    import_mturk_template(EMOTION, EMOTION_BATCH, "emotion")  # the same template takes another batch
    assert MTurkTemplate.objects.count() == 1 and Job.objects.count() == 2


def test_exporting_a_job_that_is_no_template_job_is_a_command_error(tmp_path: Path) -> None:
    make_corpus(claims=1, perspectives=1)
    stance = create_job("stance", {})

    with pytest.raises(CommandError, match="no job 999"):
        call_command("export_mturk_batch", "999", "--out", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="is a stance job, not an MTurk template job"):
        call_command("export_mturk_batch", str(stance.pk), "--out", str(tmp_path / "x.csv"))


def test_another_job_may_run_over_a_stored_batch_by_its_filter() -> None:
    first = import_mturk_template(EMOTION, EMOTION_BATCH, "emotion")
    again = published(create_job("mturk_template", first.filters, params={"workers_per_item": 1}))

    page = annotator("ann").get(reverse("annotation:job", args=[again.pk]) + "?preview=1")
    assert page.status_code == 200 and b"Being a performer" in page.content


@pytest.mark.parametrize("hostile", [{}, {"mturk_batch": "1; drop"}, {"mturk_batch": True}, {"limit": 3}])
def test_a_template_job_needs_a_batch_id_as_its_only_filter(hostile: dict[str, Any]) -> None:
    with pytest.raises(TaskTypeError, match="chosen by one filter, mturk_batch"):
        create_job("mturk_template", hostile)


def test_exporting_without_a_pseudonym_key_is_a_command_error(tmp_path: Path, settings: Any) -> None:
    job = published(import_mturk_template(EMOTION, EMOTION_BATCH, "emotion", params={"workers_per_item": 1}))
    answer_every_row(annotator("ann"), job, {"emotion": "Fear"})
    settings.WORKER_PSEUDONYM_KEY, settings.DEBUG = "", False

    with pytest.raises(CommandError, match="set WORKER_PSEUDONYM_KEY"):
        call_command("export_mturk_batch", str(job.pk), "--out", str(tmp_path / "x.csv"))
    assert not (tmp_path / "x.csv").exists()


def test_only_the_trust_permission_may_mark_a_template_trusted() -> None:
    template_admin = admin.site._registry[MTurkTemplate]
    editor = User.objects.create_user("editor", is_staff=True)
    editor.user_permissions.add(Permission.objects.get(codename="change_mturktemplate"))
    researcher = User.objects.create_user("researcher", is_staff=True)
    researcher.groups.add(Group.objects.get(name="researcher"))

    for user, may in ((User.objects.get(pk=editor.pk), False), (User.objects.get(pk=researcher.pk), True)):
        request = RequestFactory().get("/admin/")
        request.user = user
        assert ("mark_trusted" in template_admin.get_actions(request)) is may
        assert ("trusted" not in template_admin.get_readonly_fields(request)) is may


def test_the_template_and_batch_admin_pages_render(client: Client) -> None:
    import_mturk_template(EMOTION, EMOTION_BATCH, "emotion")
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    template, batch = MTurkTemplate.objects.get(), MTurkBatch.objects.get()

    for url in (
        reverse("admin:annotation_mturktemplate_changelist"),
        reverse("admin:annotation_mturktemplate_change", args=[template.pk]),
        reverse("admin:annotation_mturkbatch_changelist"),
        reverse("admin:annotation_mturkbatch_change", args=[batch.pk]),
    ):
        assert client.get(url).status_code == 200, url
