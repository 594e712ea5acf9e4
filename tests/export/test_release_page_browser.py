"""The release page in real Chromium: the datasheet reads as a document, with real tables.

With SCREENSHOTS_DIR set, the test also saves the page as docs/how-to/release.md shows it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from corpus.models import Status
from export.services import build_release
from tests.annotation.factories import make_corpus
from tests.annotation.test_browser import page  # noqa: F401  (the Chromium page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_release_page_renders_the_datasheet(
    live_server: Any,
    page: Any,  # noqa: F811
    releases_dir: Path,
) -> None:
    # Not the small_corpus fixture: its topics are seeded by a migration, which a transactional test's
    # flush may have removed.
    make_corpus(claims=10, perspectives=3, status=Status.KEPT)
    build_release("1.0")
    editor = User.objects.create_user("editor", password="a-long-test-password", is_staff=True)
    editor.groups.add(Group.objects.get(name="researcher"))

    page.goto(f"{live_server.url}/admin/login/?next=/releases/1.0/")
    page.fill("input[name=username]", "editor")
    page.fill("input[name=password]", "a-long-test-password")
    page.click("input[type=submit]")

    sheet = page.locator(".datasheet")
    assert sheet.locator("h1, h2").count() >= 3
    assert sheet.locator("table").count() >= 1 and sheet.locator("table th").count() >= 2
    assert "|---" not in sheet.inner_text()  # no raw Markdown table left
    if os.environ.get("SCREENSHOTS_DIR"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOTS_DIR"]) / "release.png"), full_page=True)
