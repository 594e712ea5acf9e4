"""The dashboard's quality panel: estimates over time, stopped workers with evidence, money, gold."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from aggregation.quality_panel import quality_panel
from annotation.ledger.models import RowKind, RowState
from annotation.models import Assignment, Response
from annotation.quality import services as quality
from annotation.quality.models import WorkerStop
from annotation.work.jobs import create_job
from tests.annotation.factories import make_corpus
from tests.annotation.test_live_quality import ledger_row, live_job, stop_an_adversary

pytestmark = pytest.mark.django_db


def test_the_panel_shows_the_stopped_worker_the_money_paid_to_them_and_the_gold_spent(client: Client) -> None:
    job = live_job()
    adversary = stop_an_adversary(job)
    paid = Assignment.objects.filter(worker=adversary).first()
    assert paid is not None
    ledger_row(paid, RowKind.BONUS, RowState.CONFIRMED, "1.75")
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    page = client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    panel = quality_panel(job)
    assert panel is not None and len(panel.stops) == 1
    gold = Response.objects.filter(job=job, is_gold=True).count()
    assert gold > 0 and panel.gold_answers == gold
    assert 'id="quality"' in page and "<svg" in page
    assert "1.75" in page.split('id="paid-to-stopped"')[1][:40]
    assert f">{quality.paid_to_stopped(job):.2f} " in page.split('id="paid-to-stopped"')[1][:40]
    assert f">{gold} gold answer" in page
    stop = WorkerStop.objects.get()
    assert reverse("admin:annotation_workerstop_change", args=[stop.pk]) in page
    assert "market-id-of-the-adversary" not in page
    # Named as the dashboard's other tables name a worker, so one worker's rows can be matched.
    quality_rows = page.split('id="quality-workers"')[1].split("</table>")[0]
    stopped_rows = page.split('id="stopped-workers"')[1].split("</table>")[0]
    assert f"<td>{adversary}</td>" in quality_rows and f"<td>{adversary}</td>" in stopped_rows
    assert f"<td>{adversary}</td>" in page.split('<table id="workers">')[1]


def test_a_job_without_live_checks_has_no_panel() -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})
    assert quality_panel(job) is None


def test_flagged_free_text_answers_waiting_for_a_person_are_counted_on_the_panel(client: Client) -> None:
    from tests.annotation.test_writing_records import TYPED, start, submit

    job, assignment = start(client)
    submit(client, assignment, {"1": TYPED, "2": {"pasted": 64, "pastes": 1}})
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    page = client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()

    panel = quality_panel(job)
    assert panel is not None and panel.flagged_writing == 1
    assert ">1</a>" in page.split('id="flagged-writing"')[1][:200]


def test_the_flagged_writing_link_lists_what_the_panel_counts_this_jobs_waiting_answers(
    client: Client,
) -> None:
    import re

    from django.utils import timezone

    from annotation.quality.models import WritingRecord
    from tests.aggregation.jobdata import answer, keys, stance_job
    from tests.annotation.test_writing_records import TYPED, start, submit

    job, assignment = start(client)
    submit(client, assignment, {"1": TYPED, "2": {"pasted": 64, "pastes": 1}})
    mine = WritingRecord.objects.filter(response__job=job, flagged=True).get().response
    # Beside it: one flagged and already accepted in the job, one flagged in another job.
    WritingRecord.objects.create(response=mine, field="accepted", flagged=True, accepted_at=timezone.now())
    other = stance_job(make_corpus(claims=1, perspectives=1))
    answer(other, {keys(other)[0]: ["SUPPORT"]})
    WritingRecord.objects.create(response=Response.objects.get(job=other), field="elsewhere", flagged=True)
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    page = client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    link = re.search(r'id="flagged-writing"><a href="([^"]+)"', page)
    assert link is not None
    listed = client.get(link.group(1).replace("&amp;", "&"))

    panel = quality_panel(job)
    assert panel is not None and panel.flagged_writing == 1
    assert listed.status_code == 200 and listed.context["cl"].result_count == panel.flagged_writing
