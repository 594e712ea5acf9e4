"""The VAST task type: comments paired with their claim's topic, a form that lists topics, takes a
5-point stance or a correction, and a simulated crowd that runs it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Item, JobState, Response
from annotation.task_types import get_task_type
from annotation.web.forms import HitForm
from annotation.work.assignments import items_of
from annotation.work.jobs import create_job, publish_job, sync_job
from tests.annotation.factories import make_vast_corpus

pytestmark = pytest.mark.django_db
VAST = get_task_type("vast_stance")


def form_for(item: Item, data: dict[str, str]) -> HitForm:
    return HitForm(VAST, [item], data={f"item-{item.pk}-{k}": v for k, v in data.items()})


def test_each_kept_perspective_and_paragraph_is_paired_with_its_claims_first_topic() -> None:
    claims = make_vast_corpus()
    specs = list(VAST.select_items({"status": "kept"}, VAST.params()))

    assert [(s.payload["kind"], s.payload["topic"]) for s in specs] == [
        ("perspective", "education"),
        ("perspective", "education"),
        ("evidence", "education"),
        ("perspective", "health and medicine"),
        ("perspective", "health and medicine"),
    ]
    assert {s.payload["cid"] for s in specs} == {claims[0].cid, claims[1].cid}  # the untagged claim has none
    paragraph = specs[2]
    assert paragraph.key == "e900-education" and paragraph.group == "e900"
    assert paragraph.known_answer["stance"] == "PRO"  # the first cluster supports its claim
    assert paragraph.known_answer["correction"] == claims[0].text


def test_topics_per_comment_proposes_more_of_the_claims_topics() -> None:
    first = make_vast_corpus()[0]
    params = VAST.params({"topics_per_comment": 2, "evidence_per_claim": 0})
    keys = [s.key for s in VAST.select_items({"claims": [first.cid]}, params)]
    assert len(keys) == 4 and {key.rsplit("-", 1)[1] for key in keys} == {"education", "economy"}


def test_a_stance_answer_keeps_the_listed_topics_and_the_5_point_label() -> None:
    make_vast_corpus()
    job = create_job("vast_stance", {"status": "kept"})
    item = job.items.order_by("pk")[0]
    form = form_for(item, {"topics": "school uniforms, bullying\nbullying", "stance": "strongly_pro"})

    assert form.is_valid(), form.errors
    answer = form.answers()[item.pk]
    assert answer.label == "strongly_pro"
    listed = ["school uniforms", "bullying"]
    assert answer.value == {"topics": listed, "stance": "STRONGLY_PRO", "correction": ""}
    assert VAST.is_correct(item, answer)


def test_a_correction_is_stored_as_corrected_with_the_stance_on_the_new_topic() -> None:
    make_vast_corpus()
    item = create_job("vast_stance", {"status": "kept"}).items.order_by("pk")[0]
    form = form_for(item, {"topics": "uniforms", "stance": "con", "correction": "  school   uniforms "})

    assert form.is_valid(), form.errors
    answer = form.answers()[item.pk]
    assert answer.label == "corrected"
    assert answer.value["correction"] == "school uniforms" and answer.value["stance"] == "CON"
    assert not VAST.is_correct(item, answer)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"topics": " , ;", "stance": "pro"}, "List at least one topic."),
        ({"topics": "a, the", "stance": "pro"}, "is not a topic"),
        ({"topics": "one two three four five six seven eight nine", "stance": "pro"}, "8 words or fewer"),
        ({"topics": "uniforms", "stance": "pro", "correction": "The Education"}, "is the proposed topic"),
        ({"topics": "uniforms", "stance": "maybe"}, "Select a valid choice"),
        ({"topics": "uniforms"}, "This field is required"),
    ],
)
def test_a_bad_answer_is_refused_with_the_reason(data: dict[str, str], error: str) -> None:
    make_vast_corpus()
    item = create_job("vast_stance", {"status": "kept"}).items.order_by("pk")[0]
    form = form_for(item, data)
    assert not form.is_valid()
    assert error in str(form.errors)


def test_every_quiz_answer_is_one_of_its_choices_and_one_asks_for_a_correction() -> None:
    answers = [q.answer for q in VAST.quiz]
    assert all(q.answer in dict(q.choices) for q in VAST.quiz)
    assert "corrected" in answers and len(set(answers)) == 3


def test_a_simulated_crowd_completes_a_vast_job_three_workers_an_item_with_some_corrections() -> None:
    make_vast_corpus()
    crowd: dict[str, Any] = {"size": 10, "spammer_share": 0.0}
    job = create_job("vast_stance", {"status": "kept"}, market="simulated", params={"crowd": crowd})
    publish_job(job.pk)
    job = sync_job(job.pk)

    responses = list(Response.objects.filter(job=job))
    assert job.state == JobState.COMPLETE
    assert len(responses) == 3 * job.items.count()
    assert all(r.simulated and r.value["topics"] for r in responses)
    corrected = [r for r in responses if r.label == "corrected"]
    assert corrected and len(corrected) < len(responses)
    assert all(r.value["correction"] and r.value["stance"] for r in corrected)


def test_the_preview_shows_the_comment_and_the_proposed_topic(previewer: Client) -> None:
    make_vast_corpus()
    job = create_job("vast_stance", {"status": "kept"})

    response = previewer.get(reverse("annotation:job", args=[job.pk]) + "?preview=1")

    assert response.status_code == 200
    assert b"Pupils in uniform were bullied less." in response.content
    assert b'Proposed topic: <span class="topic">education</span>' in response.content


def test_a_hostile_submission_is_shown_again_with_errors_and_stores_nothing(client: Client) -> None:
    make_vast_corpus()
    job = publish_job(create_job("vast_stance", {"status": "kept"}, market="inhouse").pk)
    client.force_login(User.objects.create_user("ann", password="pw-for-tests-1"))
    client.post(reverse("annotation:quiz", args=[job.pk]), {q.key: q.answer for q in VAST.quiz})
    url = client.post(reverse("annotation:start", args=[job.pk]))["Location"]
    items = items_of(Assignment.objects.get())
    data = {}
    for item in items:
        data |= {f"item-{item.pk}-topics": "x" * 5000, f"item-{item.pk}-stance": "' OR 1=1 --"}
        data |= {f"item-{item.pk}-correction": "<script>alert(1)</script>"}

    response = client.post(url, data)

    assert response.status_code == 200 and b"Please answer every item" in response.content
    assert b"<script>alert(1)" not in response.content and b"&lt;script&gt;alert(1)" in response.content
    assert not Response.objects.exists()
