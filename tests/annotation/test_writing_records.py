"""Free-text answers submitted with the page's record of how they were written: a pasted one is held
for review and kept out of the corpus until a person accepts it."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from accounts.models import AuditEvent
from annotation.models import Assignment, Job
from annotation.quality.models import WritingRecord
from annotation.quality.writing_records import NO_RECORD, accept_writing
from annotation.task_types import get_task_type
from annotation.work.assignments import items_of
from annotation.work.jobs import create_job, publish_job
from annotation.work.paraphrases import collect_paraphrases
from corpus.models import Perspective
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

TYPED = {"typed": 70, "deleted": 3, "first_key_ms": 4000, "typing_ms": 21000, "focus_changes": 1}


def start(client: Client) -> tuple[Job, Assignment]:
    make_corpus(claims=1, perspectives=1)
    job = publish_job(create_job("paraphrase_writing", {}, params={"hints": 0}).pk)
    client.force_login(User.objects.get_or_create(username="writer")[0])
    quiz = {q.key: q.answer for q in get_task_type("paraphrase_writing").quiz}
    client.post(reverse("annotation:quiz", args=[job.pk]), quiz)
    client.post(reverse("annotation:start", args=[job.pk]))
    return job, Assignment.objects.get(state="accepted")


def submit(client: Client, assignment: Assignment, records: dict[str, object | None]) -> None:
    (item,) = items_of(assignment)
    posted: dict[str, str] = {}
    for n, record in records.items():
        name = f"item-{item.pk}-{n}"
        posted[name] = f"Creatures that can suffer deserve legal protection, argument {n}"
        if record is not None:
            posted[f"writing-{name}"] = record if isinstance(record, str) else json.dumps(record)
    page = client.post(reverse("annotation:assignment", args=[assignment.pk]), posted)
    assert page.status_code in (200, 302)


def test_typed_answers_are_recorded_unflagged_and_join_the_corpus(client: Client) -> None:
    job, assignment = start(client)
    submit(client, assignment, {"1": TYPED, "2": TYPED})

    records = WritingRecord.objects.order_by("field")
    assert [record.flagged for record in records] == [False, False]
    assert records[0].signals["typed"] == 70
    assert collect_paraphrases(job.pk).created == 2


def test_a_pasted_answer_is_held_until_a_person_accepts_it(client: Client) -> None:
    job, assignment = start(client)
    pasted = {"pasted": 64, "pastes": 1, "first_key_ms": 800}
    submit(client, assignment, {"1": TYPED, "2": pasted})

    flagged = WritingRecord.objects.get(flagged=True)
    assert flagged.field.endswith("-2") and flagged.reasons[0].startswith("pasted")
    report = collect_paraphrases(job.pk)
    assert (report.created, report.held_for_review) == (0, 1)
    assert not Perspective.objects.filter(source="paraphrase").exists()

    person = User.objects.create(username="reviewer")
    assert accept_writing([flagged.pk], person) == 1
    assert collect_paraphrases(job.pk).created == 2
    assert AuditEvent.objects.get(action=AuditEvent.Action.WRITING_ACCEPTED).detail["records"] == [flagged.pk]


@pytest.mark.parametrize("record", [None, "not json", json.dumps({"typed": -3}), "x" * 5000])
def test_an_answer_without_an_honest_record_is_saved_and_held(client: Client, record: str | None) -> None:
    _job, assignment = start(client)
    submit(client, assignment, {"1": TYPED, "2": record})

    assignment.refresh_from_db()
    assert assignment.state == "submitted"  # nothing lost
    held = WritingRecord.objects.get(flagged=True)
    assert held.reasons[0].startswith(NO_RECORD)
