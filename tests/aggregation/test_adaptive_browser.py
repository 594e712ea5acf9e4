"""Done-when (issue 29): an adaptive in-house job finished in real Chromium, whose second round has
only the items still open after the first."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.models import Hit, Item, JobState
from annotation.task_types.base import Answer
from annotation.work.assignments import get_worker, next_assignment
from annotation.work.jobs import create_job, publish_job
from annotation.work.quiz import grade_quiz
from annotation.work.submitting import submit_assignment
from tests.annotation.factories import make_corpus
from tests.annotation.test_browser import log_in_to, page, take_the_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["page"]  # the Chromium fixture, shared with annotation's browser tests

# The paper's rule decides: after 3 answers a 3–0 item is settled (a fourth cannot overturn it); a 2–1
# item is open and gets a fourth answer in the second round.
ADAPTIVE = {"redundancy": "adaptive", "min_workers": 3, "max_workers": 4, "stop_posterior": 0.95}


def first_round(job: Any, open_items: set[int]) -> None:
    """Three in-house annotators answer every item SUPPORT, except that the third says UNDERMINE on
    the items meant to stay open."""
    for number in range(3):
        worker = get_worker("inhouse", f"round-one-{number}")
        grade_quiz(worker, job, {q.key: q.answer for q in _quiz(job)})
        assignment = next_assignment(job, worker)
        items = Item.objects.filter(hit_items__hit=assignment.hit_id)
        answers = {
            item.pk: Answer("UNDERMINE" if number == 2 and item.pk in open_items else "SUPPORT")
            for item in items
        }
        submit_assignment(assignment.pk, answers)


def _quiz(job: Any) -> Any:
    from annotation.task_types import get_task_type

    return get_task_type(job.task_type).quiz


def test_an_adaptive_in_house_job_asks_a_second_round_of_the_open_items_only(
    live_server: Any, page: Any
) -> None:
    make_corpus(claims=3, perspectives=2)
    job = publish_job(create_job("stance", {}, market="inhouse", params=ADAPTIVE).pk)
    items = list(job.items.order_by("pk").values_list("pk", flat=True))
    open_items = set(items[::3])
    first_hits = set(job.hits.values_list("pk", flat=True))

    first_round(job, open_items)  # its completion publishes the second round at once

    second = Hit.objects.filter(job=job).exclude(pk__in=first_hits)
    assert set(second.values_list("items", flat=True)) == open_items
    log_in_to(page, live_server, job)
    take_the_quiz(page, "stance")
    page.click("text=Start working")
    page.wait_for_selector("fieldset.item")
    shown = {int(item.get_attribute("data-item")) for item in page.locator("fieldset.item").all()}
    assert shown == open_items
    for _ in shown:
        page.keyboard.press("1")
    page.click("#submit-hit")
    page.wait_for_selector("text=your answers are saved")

    job.refresh_from_db()
    assert job.state == JobState.COMPLETE
    assert job.aggregation_runs.filter(state="done").exists()
    answered = {pk: job.responses.filter(item_id=pk).count() for pk in items}
    assert answered == {pk: 4 if pk in open_items else 3 for pk in items}
