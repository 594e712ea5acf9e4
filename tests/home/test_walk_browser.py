"""Done-when: after `make run`, a researcher reaches every staff page from `/` by clicking only, and
no page of the walk, nor the demo's output, shows a template comment or a Python repr.

With SCREENSHOTS_DIR set, the test also saves the home page and a dashboard reached from it, as the
README shows them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin

from tests.annotation.test_browser import ARGS
from tests.home.walk import Walk, raw_output
from tests.served_demo import REPO, ServedDemo

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The staff pages besides every model's change list (export:diff: once a second release is built).
STAFF_PAGES = {
    "home", "admin:index", "aggregation:dashboard", "aggregation:adjudicate", "aggregation:claim_clusters",
    "aggregation:compare_claims", "aggregation:similar_claim_pairs", "export:releases", "export:release",
    "export:diff",
    "admin:crawler_crawlrun_start", "admin:crawler_crawlrun_change", "admin:pipeline_pipelinerun_change",
    "admin:annotation_job_change", "admin:aggregation_aggregationrun_change", "api-root", "api-docs",
}  # fmt: skip


def every_change_list() -> set[str]:
    models = admin.site._registry
    return {f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist" for model in models}


@pytest.fixture(scope="module")
def second_release(served_demo: ServedDemo) -> str:
    """The demo's next release, as a researcher builds it after a change (the claims split afresh, with
    another seed), so the releases page has two to compare. Its version."""
    command = ["manage.py", "build_release", "--version", "demo-2", "--split-seed", "7"]
    done = subprocess.run(
        [sys.executable, *command], cwd=REPO, env=served_demo.env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return "demo-2"


@pytest.fixture
def browser_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()


def screenshot(page: Any, name: str) -> None:
    if os.environ.get("SCREENSHOTS_DIR"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOTS_DIR"]) / name), full_page=True)


def test_every_staff_page_is_reached_from_the_home_page_by_clicking(
    served_demo: ServedDemo, second_release: str, browser_page: Any
) -> None:
    page = browser_page
    page.goto(served_demo.base + "/")  # the one typed address: the start page
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", served_demo.password)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    assert page.url == served_demo.base + "/" and page.title().startswith("Home")
    screenshot(page, "home.png")

    page.locator("#recent-jobs a", has_text="dashboard").first.click()
    page.wait_for_load_state()
    assert "/aggregation/jobs/" in page.url and page.locator("#job-settings").count() == 1
    screenshot(page, "dashboard.png")
    page.go_back()

    walk = Walk(served_demo.base)
    walk.visit(page, [])

    missing = (STAFF_PAGES | every_change_list()) - set(walk.pages)
    assert missing == set(), f"not reached by clicking from /: {sorted(missing)}"
    diff = walk.texts[walk.pages["export:diff"]]
    assert f"demo-1 → {second_release}" in diff and "Claims that changed split" in diff
    assert walk.refused == [], "links that answer 4xx or 5xx:\n" + "\n".join(walk.refused)
    raw = [f"{url}: {found}" for url, text in walk.texts.items() for found in raw_output(text)]
    assert raw == [], f"{len(raw)} raw forms:\n" + "\n".join(raw[:40])


def test_the_demo_output_speaks_plainly(served_demo: ServedDemo) -> None:
    assert "Demo pipeline" in served_demo.demo_output
    assert raw_output(served_demo.demo_output) == []
    assert f"Staff login for {served_demo.base}/ : admin / " in served_demo.demo_output
