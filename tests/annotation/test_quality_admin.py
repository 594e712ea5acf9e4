"""Staff see a stopped worker with the evidence, and only `reverse_workerstop` lets them back in."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

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
    stop_an_adversary(live_job())
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
