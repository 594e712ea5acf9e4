"""Done-when: a stance job over 20 claims, and a counter-speech HIT, by an in-house annotator in real
Chromium (quiz, task, submit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connections

from annotation.models import Assignment, Item, Response
from annotation.task_types import get_task_type
from annotation.work.accuracy import job_accuracy
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import crawled_counter_speech_questions, make_corpus, make_vast_corpus

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the test makes
    # around it are still synchronous and safe.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()
            # While Playwright's sync API runs, this thread is in a contextvars context of its own,
            # and Django keeps its connections per context: the test's are not the ones the test
            # database's teardown closes. Left open, they keep that database from being dropped.
            connections.close_all()


def log_in_to(page: Any, live_server: Any, job: Any) -> None:
    """A new in-house annotator opens the job and logs in."""
    User.objects.create_user("annotator", password="a-long-test-password")
    page.goto(f"{live_server.url}/annotate/jobs/{job.pk}/")
    page.fill("input[name=username]", "annotator")
    page.fill("input[name=password]", "a-long-test-password")
    page.click("button[type=submit]")


def take_the_quiz(page: Any, task_type: str, answer: str | None = None) -> None:
    """Answer the job's quiz: right (`answer` None) or every question with `answer`."""
    page.click("text=Take the qualification quiz")
    for question in get_task_type(task_type).quiz:
        page.check(f"fieldset[data-question={question.key}] input[value={answer or question.answer}]")
    page.click("#submit-quiz")


def answer_every_item_by_keyboard(page: Any) -> int:
    """Start working, answer each item of the HIT by keyboard only, and submit; how many items there were.
    The first item has focus; "1" answers Supports and moves to the next item."""
    page.click("text=Start working")
    page.wait_for_selector("fieldset.item")
    items = page.locator("fieldset.item").count()
    for _ in range(items):
        page.keyboard.press("1")
    page.click("#submit-hit")
    page.wait_for_selector("text=your answers are saved")
    return items


def test_an_in_house_annotator_does_a_stance_hit_in_chromium(live_server: Any, page: Any) -> None:
    make_corpus(claims=20, perspectives=2)
    job = publish_job(create_job("stance", {}, market="inhouse").pk)

    log_in_to(page, live_server, job)
    take_the_quiz(page, "stance")
    items = answer_every_item_by_keyboard(page)

    assignment = Assignment.objects.get()
    assert items == 20  # ten claims with both their perspectives
    assert assignment.state == "submitted" and assignment.work_seconds > 0
    assert Response.objects.filter(assignment=assignment, label="SUPPORT").count() == 20


def test_an_in_house_annotator_lists_topics_gives_a_stance_and_corrects_a_topic_in_chromium(
    live_server: Any, page: Any
) -> None:
    claims = make_vast_corpus()
    job = create_job("vast_stance", {"claims": [claims[1].cid]}, market="inhouse")
    job = publish_job(job.pk)

    log_in_to(page, live_server, job)
    take_the_quiz(page, "vast_stance")
    page.click("text=Start working")

    page.wait_for_selector("fieldset.item")
    first, second = page.locator("fieldset.item").all()
    assert "health and medicine" in first.text_content()
    stance_item, corrected_item = (int(item.get_attribute("data-item")) for item in (first, second))
    first.locator("textarea").fill("hospital funding\nwaiting lists")
    first.locator("input[value=strongly_pro]").check()
    second.locator("textarea").fill("patients, doctors")
    second.locator("input[value=con]").check()
    second.locator("input[type=text]").fill("private hospitals")
    page.click("#submit-hit")
    page.wait_for_selector("text=your answers are saved")

    stance = Response.objects.get(item_id=stance_item)
    corrected = Response.objects.get(item_id=corrected_item)
    assert Assignment.objects.get().state == "submitted"
    assert stance.label == "strongly_pro"
    assert stance.value == {
        "topics": ["hospital funding", "waiting lists"],
        "stance": "STRONGLY_PRO",
        "correction": "",
    }
    assert corrected.label == "corrected"
    assert corrected.value == {
        "topics": ["patients", "doctors"],
        "stance": "CON",
        "correction": "private hospitals",
    }


def test_a_failed_quiz_in_chromium_shows_why_there_is_no_work(live_server: Any, page: Any) -> None:
    make_corpus(claims=1, perspectives=1)
    job = publish_job(create_job("stance", {}, market="inhouse").pk)

    log_in_to(page, live_server, job)
    take_the_quiz(page, "stance", "MILDLY_SUPPORT")

    assert "cannot offer you this work" in page.text_content("#message")
    assert not Assignment.objects.exists()


def test_an_in_house_annotator_picks_a_counter_speech_and_gives_reasons_in_chromium(
    live_server: Any, page: Any
) -> None:
    questions = crawled_counter_speech_questions(limit=2)
    job = create_job(
        "counter_speech", {"questions": questions}, market="inhouse", params={"groups_per_hit": 2}
    )
    job = publish_job(job.pk)

    log_in_to(page, live_server, job)
    take_the_quiz(page, "counter_speech")
    page.click("text=Start working")

    page.wait_for_selector("fieldset.item")
    shown = [
        int(pk) for pk in page.eval_on_selector_all("fieldset.item", "els => els.map(e => e.dataset.item)")
    ]
    first, second = (Item.objects.get(pk=pk) for pk in shown)
    assert page.locator(f"fieldset[data-item='{first.pk}'] [data-candidate]").count() == len(
        first.payload["candidates"]
    )
    wrong = next(c["label"] for c in second.payload["candidates"] if c["label"] != second.known_answer)
    page.check(f"input[name=item-{first.pk}][value={first.known_answer}]")
    page.check(f"input[name=item-{first.pk}-reasons][value=quotes]")
    page.check(f"input[name=item-{first.pk}-reasons][value=main_issue]")
    page.check(f"input[name=item-{second.pk}][value={wrong}]")
    page.check(f"input[name=item-{second.pk}-reasons][value=other]")
    page.click("#submit-hit")

    # "Other" asks for the reason in the worker's own words; the page keeps what was chosen.
    page.wait_for_selector("text=write your reason in your own words")
    assert not Assignment.objects.filter(state="submitted").exists()
    page.fill(f"textarea[name=item-{second.pk}-other]", "It rebuts the cost of treatment, as the point does.")
    page.click("#submit-hit")
    page.wait_for_selector("text=your answers are saved")

    answers = {r.item_id: (r.label, r.value) for r in Response.objects.filter(assignment__job=job)}
    assert answers == {
        first.pk: (first.known_answer, {"reasons": ["quotes", "main_issue"], "other": ""}),
        second.pk: (
            wrong,
            {"reasons": ["other"], "other": "It rebuts the cost of treatment, as the point does."},
        ),
    }
    found = job_accuracy(job.pk)
    assert (found.overall.correct, found.overall.answered) == (1, 2)
