"""Teams and invitations for in-house annotators, their own work page, and the audit trail."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.invitations import InvitationError, accept, create_invitations, token
from accounts.models import AuditEvent, Invitation, Team
from aggregation import services
from aggregation.adjudication import adjudicate
from aggregation.models import ItemOutcome
from aggregation.trimming import merge_clusters
from annotation.models import Assignment, Response
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer
from annotation.work.assignments import get_worker, has_work_left, items_of, next_assignment
from annotation.work.jobs import create_job, job_progress, publish_job
from annotation.work.quiz import grade_quiz
from annotation.work.submitting import submit_assignment
from corpus.models import PerspectiveCluster
from export.services import build_release
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus
from tests.races import race

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-9"


def join(client: Client, link: str, username: str) -> Any:
    return client.post(link, {"username": username, "password1": PASSWORD, "password2": PASSWORD})


def path_of(invitation: Invitation) -> str:
    return reverse("annotation:join", args=[token(invitation)])


def test_the_command_prints_links_that_each_join_the_team_once(client: Client) -> None:
    out = StringIO()
    call_command(
        "invite",
        "linguistics-101",
        "--count",
        "2",
        "--expires",
        "7d",
        "--base-url",
        "https://lab.example",
        stdout=out,
    )
    links = out.getvalue().split()
    assert len(links) == 2 and all(link.startswith("https://lab.example/annotate/join/") for link in links)
    first = links[0].removeprefix("https://lab.example")

    assert join(client, first, "ada").status_code == 302
    ada = User.objects.get(username="ada")
    assert list(ada.teams.values_list("name", flat=True)) == ["linguistics-101"]
    assert not ada.is_staff and not ada.user_permissions.exists()
    client.logout()
    again = join(client, first, "eve")
    assert again.status_code == 400 and not User.objects.filter(username="eve").exists()


@pytest.mark.parametrize("expires", ["0d", "7", "forever", "99999d"])
def test_the_command_refuses_a_bad_expiry(expires: str) -> None:
    with pytest.raises(CommandError):
        call_command("invite", "t", "--expires", expires, stdout=StringIO())
    assert not Invitation.objects.exists()


def test_an_expired_or_forged_link_is_refused(client: Client) -> None:
    team = Team.objects.create(name="t")
    (old,) = create_invitations(team, 1, timedelta(hours=1))
    Invitation.objects.filter(pk=old.pk).update(expires=timezone.now() - timedelta(seconds=1))
    assert client.get(path_of(old)).status_code == 400
    assert join(client, path_of(old), "late").status_code == 400
    forged = path_of(old)[:-3] + "abc/"
    assert client.get(forged).status_code == 400
    assert client.get("/annotate/join/" + "x" * 500 + "/").status_code == 400
    assert not User.objects.filter(username="late").exists()


def test_a_weak_password_is_refused_and_the_invitation_stays_open(client: Client) -> None:
    team = Team.objects.create(name="t")
    (invitation,) = create_invitations(team, 1, timedelta(days=1))
    page = client.post(path_of(invitation), {"username": "bob", "password1": "123", "password2": "123"})
    assert page.status_code == 200 and "too short" in page.content.decode()
    invitation.refresh_from_db()
    assert invitation.used_at is None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_invitation_used_by_parallel_requests_makes_exactly_one_account() -> None:
    team = Team.objects.create(name="t")
    (invitation,) = create_invitations(team, 1, timedelta(days=1))
    value = token(invitation)

    errors = race(8, lambda n: accept(value, f"racer{n}", PASSWORD))

    assert all(isinstance(error, InvitationError) for error in errors) and len(errors) == 7
    assert team.members.count() == 1 and User.objects.filter(username__startswith="racer").count() == 1


def submit(assignment: Assignment, seconds: float) -> None:
    """Answer every item SUPPORT, as if after ``seconds`` of work."""
    Assignment.objects.filter(pk=assignment.pk).update(
        accepted_at=timezone.now() - timedelta(seconds=seconds)
    )
    submit_assignment(assignment.pk, {item.pk: Answer(label="SUPPORT") for item in items_of(assignment)})


def in_house_job(claims: int, teams: list[Team]) -> Any:
    make_corpus(claims=claims, perspectives=1)
    job = create_job("stance", {"limit": claims}, market="inhouse")
    job.teams.set(teams)
    return publish_job(job.pk)


def test_annotators_see_only_their_teams_jobs(client: Client) -> None:
    ours, theirs = Team.objects.create(name="ours"), Team.objects.create(name="theirs")
    mine, other, everyone = in_house_job(1, [ours]), in_house_job(1, [theirs]), in_house_job(1, [])
    ada = User.objects.create_user("ada", password=PASSWORD)
    ours.members.add(ada)
    client.force_login(ada)

    queue = client.get(reverse("annotation:queue")).content.decode()

    assert f'href="/annotate/jobs/{mine.pk}/"' in queue and f'href="/annotate/jobs/{everyone.pk}/"' in queue
    assert f'href="/annotate/jobs/{other.pk}/"' not in queue
    assert client.get(reverse("annotation:job", args=[other.pk])).status_code == 403
    assert client.post(reverse("annotation:start", args=[other.pk])).status_code == 403
    assert not Assignment.objects.filter(job=other).exists()


def test_my_work_shows_assignments_items_time_and_gold(client: Client) -> None:
    job = in_house_job(2, [])
    ada = User.objects.create_user("ada", password=PASSWORD)
    worker = get_worker("inhouse", f"user-{ada.pk}", user=ada)
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type("stance").quiz})
    assignment = next_assignment(job, worker)
    submit(assignment, seconds=90)
    client.force_login(ada)

    page = client.get(reverse("annotation:my_work")).content.decode()

    items = Response.objects.filter(assignment=assignment).count()
    assert "1 of 1 assignment submitted" in page and f"{items} items done" in page and "1.5 minutes" in page
    assert 'id="logout"' in page
    queue = client.get(reverse("annotation:queue")).content.decode()
    progress = job_progress(job)
    assert not has_work_left(job, worker)
    assert "You: 1 of 1 assignment submitted." in queue
    assert "There is no more work for you in this job." in queue
    everyone = f"{progress.assignments_done} of {progress.assignments_wanted} assignments done"
    assert f"all annotators: {everyone}" in queue
    client.post(reverse("annotation:logout"))
    assert client.get(reverse("annotation:my_work")).status_code == 302


def test_the_researcher_sees_each_annotators_progress(admin_client: Client) -> None:
    job = in_house_job(2, [])
    ada = User.objects.create_user("ada", password=PASSWORD)
    worker = get_worker("inhouse", f"user-{ada.pk}", user=ada)
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type("stance").quiz})
    assignment = next_assignment(job, worker)
    submit(assignment, seconds=30)
    page = admin_client.get(reverse("admin:annotation_job_change", args=[job.pk])).content.decode()
    assert f"<td>{worker}</td><td>1/1</td>" in page


def test_adjudicating_merging_and_releasing_are_audited(
    admin_user: User, settings: Any, tmp_path: Any
) -> None:
    settings.RELEASES_DIR, settings.WORKER_PSEUDONYM_KEY = tmp_path, "audit-tests-pseudonym-key-0123456789"
    claims = make_corpus(claims=1, perspectives=2)
    job = stance_job(claims)
    answer(job, {key: ["SUPPORT", "UNDERMINE", "NOT_VALID"] for key in keys(job)})
    services.aggregate_job(job.pk)
    adjudicate(ItemOutcome.objects.filter(job=job).order_by("pk").first().pk, "SUPPORT", user=admin_user)
    merge_clusters(
        list(PerspectiveCluster.objects.filter(claim=claims[0]).values_list("pk", flat=True)), user=admin_user
    )
    build_release("1.0")

    trail = list(AuditEvent.objects.order_by("at", "pk").values_list("actor_name", "action"))
    # The job's write-back rewrote the (factory-made, import-written) clusters: that is audited too.
    assert trail == [
        ("system", "wrote_over"),
        ("admin", "adjudicated"),
        ("admin", "merged"),
        ("system", "released"),
    ]


def test_publishing_through_the_admin_is_audited_before_the_market_call(admin_client: Client) -> None:
    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="simulated")
    admin_client.post(
        reverse("admin:annotation_job_changelist"),
        {"action": "publish_on_market", "_selected_action": [job.pk], "confirm": "1"},
    )
    event = AuditEvent.objects.get(action="published")
    assert event.actor_name == "admin" and event.detail["job_ids"] == [job.pk]


def test_the_audit_trail_is_read_only_in_the_admin(admin_client: Client) -> None:
    event = AuditEvent.objects.create(actor_name="x", action="merged", target="claim 1")
    assert admin_client.get(reverse("admin:accounts_auditevent_changelist")).status_code == 200
    admin_client.post(reverse("admin:accounts_auditevent_change", args=[event.pk]), {"target": "changed"})
    assert AuditEvent.objects.get().target == "claim 1"
    assert (
        admin_client.post(
            reverse("admin:accounts_auditevent_delete", args=[event.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
