"""Staff see a stopped worker with the evidence, and only `reverse_workerstop` lets them back in."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment, Worker
from annotation.quality.models import WorkerStop
from tests.annotation.test_live_quality import live_job, stop_an_adversary

pytestmark = pytest.mark.django_db


def staff_in(client: Client, *roles: str) -> Client:
    user = User.objects.create_user("staffer", password="pw-for-tests-only", is_staff=True)
    for role in roles:
        user.groups.add(Group.objects.get(name=role))
    client.force_login(user)
    return client


def test_the_stop_page_shows_the_evidence_and_no_raw_worker_id(client: Client) -> None:
    # HITs of nine items: a new worker's rate of gold (one item in ten) puts one in each of theirs.
    stop_an_adversary(live_job(claims=12, groups_per_hit=3))
    stop = WorkerStop.objects.get()
    page = staff_in(client, "researcher").get(reverse("admin:annotation_workerstop_change", args=[stop.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    assert stop.evidence[0]["item"] in text and "gold answer" in text
    assert "market-id-of-the-adversary" not in text  # the worker's market id stays in the database


def test_a_researcher_reverses_a_stop_from_the_admin(client: Client) -> None:
    stop_an_adversary(live_job())
    stop = WorkerStop.objects.get()
    staff = staff_in(client, "researcher")
    url = reverse("admin:annotation_workerstop_changelist")
    staff.post(url, {"action": "reverse", "_selected_action": [stop.pk]}, follow=True)
    stop.refresh_from_db()
    assert stop.reversed_at is not None and stop.reversed_by.username == "staffer"


def test_staff_without_the_permission_cannot_reverse_a_stop(client: Client) -> None:
    stop_an_adversary(live_job())
    stop = WorkerStop.objects.get()
    staff = staff_in(client, "adjudicator", "approver")
    url = reverse("admin:annotation_workerstop_changelist")
    assert staff.get(url).status_code == 200  # they see the stops
    staff.post(url, {"action": "reverse", "_selected_action": [stop.pk]}, follow=True)
    stop.refresh_from_db()
    assert stop.reversed_at is None


def test_the_stop_list_reads_the_same_queries_whatever_the_number_of_stops(client: Client) -> None:
    stop_an_adversary(live_job())
    staff = staff_in(client, "researcher")
    url = reverse("admin:annotation_workerstop_changelist")

    def queries() -> int:
        with CaptureQueriesContext(connection) as read:
            assert staff.get(url).status_code == 200
        return len(read)

    one = queries()
    first = WorkerStop.objects.select_related("quality_check").get()
    # Two more stops, reversed by two people, of other workers, each on an assignment and a check of its own.
    for n in range(2):
        worker = Worker.objects.create(market=first.worker.market, external_id=f"other-{n}")
        assignment = Assignment.objects.get(pk=first.quality_check.assignment_id)
        assignment.pk, assignment.worker = None, worker
        assignment.save()
        check = first.quality_check
        check.pk, check.worker, check.assignment = None, worker, assignment
        check.save()
        WorkerStop.objects.create(
            job=first.job,
            worker=worker,
            quality_check=check,
            bar=first.bar,
            created=first.created,
            reversed_at=first.created,
            reversed_by=User.objects.create(username=f"lead-{n}"),
        )
    assert WorkerStop.objects.count() == 3
    assert queries() == one
