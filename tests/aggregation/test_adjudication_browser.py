"""Done-when: an expert decides five contested items in real Chromium with the keyboard alone.

With SCREENSHOTS_DIR set, the test also saves the page as docs/how-to/adjudicate.md shows it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User

from aggregation import services
from aggregation.adjudication import adjudication_queue
from aggregation.models import Adjudication, ItemOutcome
from corpus.models import PerspectiveCluster, Status
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus
from tests.annotation.test_browser import page  # noqa: F401  (the Chromium page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_expert_adjudicates_five_items_with_the_keyboard_alone(live_server: Any, page: Any) -> None:  # noqa: F811
    from playwright.sync_api import expect

    job = stance_job(make_corpus(claims=3, perspectives=2))
    answer(job, {key: ["SUPPORT", "UNDERMINE", "NOT_VALID"] for key in keys(job)})  # every item tied
    services.aggregate_job(job.pk)
    queue = list(adjudication_queue(job).order_by("pk"))
    assert len(queue) == 6
    q = [outcome.item.key for outcome in queue]
    expert = User.objects.create_user("expert", password="a-long-test-password", is_staff=True)
    expert.user_permissions.add(Permission.objects.get(codename="add_adjudication"))

    page.goto(f"{live_server.url}/admin/login/?next=/aggregation/jobs/{job.pk}/adjudicate/")
    page.fill("input[name=username]", "expert")
    page.fill("input[name=password]", "a-long-test-password")
    page.click("input[type=submit]")
    shown, left = page.locator("#item-key"), page.locator("#left")
    expect(shown).to_have_text(q[0])
    expect(left).to_have_text("6")
    if os.environ.get("SCREENSHOTS_DIR"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOTS_DIR"]) / "adjudication.png"), full_page=True)

    keyboard = page.keyboard
    keyboard.press("1")  # SUPPORT
    expect(shown).to_have_text(q[1])
    keyboard.press("s")  # skip
    expect(shown).to_have_text(q[2])
    keyboard.press("n")
    keyboard.type("the source says the opposite")
    keyboard.press("Escape")
    keyboard.press("4")  # UNDERMINE, with the note
    expect(shown).to_have_text(q[3])
    keyboard.press("b")  # back to the item just decided
    expect(shown).to_have_text(q[2])
    keyboard.press("5")  # changed my mind: NOT_VALID
    expect(shown).to_have_text(q[3])
    keyboard.press("2")  # MILDLY_SUPPORT
    expect(shown).to_have_text(q[4])
    keyboard.press("3")  # MILDLY_UNDERMINE
    expect(shown).to_have_text(q[5])
    keyboard.press("1")  # SUPPORT; the skipped item comes round again
    expect(shown).to_have_text(q[1])
    expect(left).to_have_text("1")

    def corpus(index: int) -> tuple[str, str]:
        cluster = PerspectiveCluster.objects.get(pk=queue[index].item.cluster_id)
        return cluster.stance_5, cluster.status

    assert corpus(0) == ("SUPPORT", Status.ADJUDICATED)
    assert corpus(2) == ("NOT_VALID", Status.REJECTED)
    assert corpus(3) == ("MILDLY_SUPPORT", Status.ADJUDICATED)
    assert corpus(4) == ("MILDLY_UNDERMINE", Status.ADJUDICATED)
    assert corpus(5) == ("SUPPORT", Status.ADJUDICATED)
    decisions = Adjudication.objects.filter(outcome=queue[2]).order_by("decided_at", "pk")
    assert [(d.new_label, d.note) for d in decisions] == [
        ("UNDERMINE", "the source says the opposite"),
        ("NOT_VALID", ""),
    ]
    assert set(Adjudication.objects.values_list("decided_by__username", flat=True)) == {"expert"}
    assert list(adjudication_queue(job)) == [ItemOutcome.objects.get(pk=queue[1].pk)]
