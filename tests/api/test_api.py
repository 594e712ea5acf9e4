"""The REST API: token login, the admin's named permissions, jobs from creation to outcomes, results
in long format (JSON and CSV, workers by pseudonym only), releases and crawls."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import AuditEvent
from annotation.models import Job, Response, Worker
from annotation.work.records import worker_pseudonym
from export.services import build_release
from operations.models import Operation
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def client_for(*roles: str) -> APIClient:
    user = User.objects.create_user(f"u{User.objects.count()}", password="x-unused-0", is_staff=True)
    user.groups.set(Group.objects.filter(name__in=roles))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def researcher() -> APIClient:
    return client_for("researcher")


@pytest.fixture
def answered(settings: Any) -> Job:
    settings.WORKER_PSEUDONYM_KEY = "api-tests-pseudonym-key-0123456789"
    job = stance_job(make_corpus(claims=2, perspectives=1))
    answer(job, {key: ["SUPPORT", "SUPPORT", "UNDERMINE"] for key in keys(job)})
    return job


def test_without_a_token_nothing_is_served() -> None:
    assert APIClient().get("/api/jobs/").status_code in (401, 403)
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Token " + "f" * 40)
    assert wrong.get("/api/jobs/").status_code == 401


def test_a_researcher_creates_jobs_but_may_not_publish(researcher: APIClient) -> None:
    make_corpus(claims=2, perspectives=1)
    made = researcher.post(
        "/api/jobs/", {"task_type": "stance", "market": "inhouse", "name": "pilot"}, format="json"
    )
    assert made.status_code == 201 and made.json()["state"] == "draft"
    job_id = made.json()["id"]
    assert researcher.post(f"/api/jobs/{job_id}/publish/").status_code == 403
    assert (
        Job.objects.get(pk=job_id).state == "draft"
        and not AuditEvent.objects.filter(action="published").exists()
    )


@pytest.mark.parametrize(
    "body",
    [{"task_type": "astrology", "market": "inhouse"}, {"task_type": "stance", "market": "nowhere"},
     {"task_type": "stance", "market": "inhouse", "params": {"no_such_param": 1}},
     {"task_type": "stance", "market": "inhouse", "budget": "-1"}, {"market": "inhouse"}],
)  # fmt: skip
def test_bad_job_requests_get_a_400_and_make_nothing(researcher: APIClient, body: dict[str, Any]) -> None:
    make_corpus(claims=1, perspectives=1)
    assert researcher.post("/api/jobs/", body, format="json").status_code == 400
    assert not Job.objects.exists()


def test_a_job_request_is_refused_in_the_words_of_the_create_job_command(researcher: APIClient) -> None:
    make_corpus(claims=1, perspectives=1)
    with pytest.raises(CommandError) as refused:
        call_command("create_job", "stance", "--workers", "1", stdout=io.StringIO())

    body = {"task_type": "stance", "market": "inhouse", "params": {"workers_per_item": 1}}
    answered = researcher.post("/api/jobs/", body, format="json")

    assert answered.status_code == 400 and answered.json() == {"detail": str(refused.value)}
    assert not Job.objects.exists()


def test_an_approver_publishes_through_an_operation_that_is_audited(
    django_capture_on_commit_callbacks: Any,
) -> None:
    make_corpus(claims=2, perspectives=1)
    researcher, approver = client_for("researcher"), client_for("researcher", "approver")
    job_id = researcher.post(
        "/api/jobs/", {"task_type": "stance", "market": "inhouse"}, format="json"
    ).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):  # the queued operation runs (in-process tasks)
        queued = approver.post(f"/api/jobs/{job_id}/publish/")
    assert queued.status_code == 202
    assert approver.get(f"/api/operations/{queued.json()['id']}/").json()["state"] == "done"
    assert Job.objects.get(pk=job_id).state in ("published", "collecting")  # open to annotators
    assert AuditEvent.objects.filter(action="published", target=f"job {job_id}").count() == 1
    progress = researcher.get(f"/api/jobs/{job_id}/progress/").json()
    assert progress["assignments_done"] == 0 and progress["assignments_wanted"] > 0
    with django_capture_on_commit_callbacks(execute=True):
        paused = researcher.post(f"/api/jobs/{job_id}/pause/")
    assert paused.status_code == 202 and Job.objects.get(pk=job_id).state == "paused"
    with django_capture_on_commit_callbacks(execute=True):
        resumed = researcher.post(f"/api/jobs/{job_id}/resume/")
    assert researcher.get(f"/api/operations/{resumed.json()['id']}/").json()["state"] == "done"
    assert Job.objects.get(pk=job_id).state in ("published", "collecting")


def test_responses_come_in_long_format_with_pseudonyms_in_json_and_csv(
    researcher: APIClient, answered: Job
) -> None:
    page = researcher.get(f"/api/jobs/{answered.pk}/responses/").json()
    assert page["count"] == 6 and set(page["results"][0]) == {"item", "worker", "label", "created"}
    workers = {row["worker"] for row in page["results"]}
    assert len(workers) == 3 and not any(name.startswith(("w0", "w1", "w2", "inhouse")) for name in workers)
    assert page["next"] is None  # one page of 100 holds all six
    download = researcher.get(f"/api/jobs/{answered.pk}/responses/", {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert len(rows) == 6 and {row["worker"] for row in rows} == workers


def test_aggregating_over_the_api_gives_outcomes_and_runs(
    researcher: APIClient, answered: Job, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        queued = researcher.post(f"/api/jobs/{answered.pk}/aggregate/", {"threshold": 0.5}, format="json")
    assert queued.status_code == 202
    outcomes = researcher.get(f"/api/jobs/{answered.pk}/outcomes/").json()["results"]
    assert sorted(o["item"] for o in outcomes) == sorted(keys(answered))
    assert {o["label"] for o in outcomes} == {"SUPPORT"} and {o["status"] for o in outcomes} == {"rejected"}
    runs = researcher.get(f"/api/jobs/{answered.pk}/runs/").json()["results"]
    assert runs[0]["items"] == 2 and runs[0]["state"] == "done"
    assert (
        researcher.post(f"/api/jobs/{answered.pk}/aggregate/", {"threshold": 7}, format="json").status_code
        == 400
    )


@pytest.mark.parametrize(
    "path",
    ["/api/jobs/abc/", "/api/jobs/" + "9" * 40 + "/", "/api/jobs/99999/progress/",
     "/api/releases/..%2F..%2Fetc/", "/api/operations/-1/"],
)  # fmt: skip
def test_forged_or_unknown_ids_are_not_found(researcher: APIClient, path: str) -> None:
    assert researcher.get(path).status_code == 404


def test_releases_list_their_manifest_and_files(researcher: APIClient, settings: Any, tmp_path: Path) -> None:
    settings.RELEASES_DIR, settings.WORKER_PSEUDONYM_KEY = tmp_path, "api-tests-pseudonym-key-0123456789"
    make_corpus(claims=2, perspectives=1)
    release = build_release("1.0")
    assert [r["version"] for r in researcher.get("/api/releases/").json()["results"]] == ["1.0"]
    assert researcher.get("/api/releases/1.0/manifest/").json()["version"] == "1.0"
    name = release.files[0]["name"]
    assert (
        b"".join(researcher.get(f"/api/releases/1.0/files/{name}/").streaming_content)
        == (release.path / name).read_bytes()
    )
    assert researcher.get("/api/releases/1.0/files/../../config/settings.py/").status_code == 404


def test_crawls_start_with_the_crawl_permission(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    started: list[int] = []
    monkeypatch.setattr(
        "crawler.services.launch_crawl", lambda run_id, saved_pages=False: started.append(run_id) or 0
    )
    approver, researcher = client_for("approver"), client_for("researcher")
    assert approver.post("/api/crawls/", {"site": "idebate"}, format="json").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        made = researcher.post("/api/crawls/", {"site": "idebate", "limit": 3}, format="json")
    assert made.status_code == 201 and made.json()["status"] == "queued" and started == [made.json()["id"]]
    assert (
        researcher.post("/api/crawls/", {"site": "idebate"}, format="json").status_code == 409
    )  # one at a time
    assert researcher.post("/api/crawls/", {"site": "nowhere"}, format="json").status_code == 400
    assert researcher.get(f"/api/crawls/{made.json()['id']}/").json()["site"] == "idebate"


def test_the_docs_and_schema_are_served(client: Any) -> None:
    assert client.get("/api/schema/").status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_a_csv_error_still_says_what_went_wrong(researcher: APIClient, answered: Job, settings: Any) -> None:
    settings.WORKER_PSEUDONYM_KEY = ""
    refused = researcher.get(f"/api/jobs/{answered.pk}/responses/", {"format": "csv"})
    assert refused.status_code == 503 and "WORKER_PSEUDONYM_KEY" in refused.content.decode()


def test_an_action_without_a_named_permission_is_refused(researcher: APIClient) -> None:
    from types import SimpleNamespace

    from api.permissions import Needs

    staff = User.objects.create_superuser("root", password="x-unused-0")  # holds every permission
    unnamed = SimpleNamespace(action="destroy", needs={"list": "annotation.view_job"})
    assert Needs().has_permission(SimpleNamespace(user=staff), unnamed) is False  # type: ignore[arg-type]
    assert researcher.options("/api/jobs/").status_code == 200


def test_expiring_and_syncing_need_the_permissions_the_admin_actions_need(answered: Job) -> None:
    refused = client_for("researcher").post(f"/api/jobs/{answered.pk}/expire/")
    synced = client_for("researcher").post(f"/api/jobs/{answered.pk}/sync/")
    expired = client_for("researcher", "approver").post(f"/api/jobs/{answered.pk}/expire/")

    assert refused.status_code == 403  # expiring stops paid work: annotation.spend_money
    assert synced.status_code == 202 and synced.json()["kind"] == "annotation.sync_jobs"
    assert expired.status_code == 202 and expired.json()["kind"] == "annotation.expire_jobs"
    assert Operation.objects.count() == 2


# -- workers, named by keyed pseudonym --------------------------------------------------------------


def a_worker_of(job: Job) -> Worker:
    worker = Response.objects.filter(job=job).select_related("worker").first()
    assert worker is not None
    return worker.worker


@pytest.mark.parametrize("action", ["block", "unblock"])
def test_a_researcher_blocks_and_unblocks_a_worker_by_pseudonym_in_the_background(
    researcher: APIClient, answered: Job, action: str
) -> None:
    worker = a_worker_of(answered)
    name = worker_pseudonym(worker)

    started = researcher.post(f"/api/workers/{name}/{action}/", {"reason": "copied answers"}, format="json")

    assert started.status_code == 202, started.content
    operation = Operation.objects.get(pk=started.json()["id"])
    assert operation.kind == f"annotation.{action}_workers" and operation.params["worker_ids"] == [worker.pk]
    assert worker.external_id not in operation.label  # the market's id never leaves through the API
    if action == "block":
        assert operation.params["reason"] == "copied answers"


@pytest.mark.parametrize(
    "name",
    ["abc", "w_" + "g" * 20, "w_" + "0" * 19, "w_" + "0" * 21, "W_" + "0" * 20, "w_" + "0" * 500,
     "w_0000000000%3B000000000", "%00", "w_00000000000000000000%20"],
)  # fmt: skip
def test_a_malformed_worker_pseudonym_is_a_400_and_starts_nothing(
    researcher: APIClient, answered: Job, name: str
) -> None:
    assert researcher.post(f"/api/workers/{name}/block/").status_code == 400
    assert not Operation.objects.exists()


def test_an_unknown_worker_is_not_found_and_a_long_reason_is_refused(
    researcher: APIClient, answered: Job
) -> None:
    assert researcher.post("/api/workers/w_" + "0" * 20 + "/block/").status_code == 404
    path, reason = f"/api/workers/{worker_pseudonym(a_worker_of(answered))}/block/", {"reason": "x" * 201}
    assert researcher.post(path, reason, format="json").status_code == 400
    assert not Operation.objects.exists()


def test_blocking_needs_the_permission_the_admin_action_needs(answered: Job) -> None:
    name = worker_pseudonym(a_worker_of(answered))
    for action in ("block", "unblock"):
        assert client_for("approver").post(f"/api/workers/{name}/{action}/").status_code == 403
    assert not Operation.objects.exists()
