"""Done-when: after `make run`, a researcher reaches every staff page from `/` by clicking only, and
no page of the walk, nor the demo's output, shows a template comment or a Python repr.

With SCREENSHOTS_DIR set, the test also saves the home page and a dashboard reached from it, as the
README and docs/index.md show them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib import admin

from tests.annotation.test_browser import ARGS
from tests.home.browsing import screenshot
from tests.home.walk import IDENTIFIERS, RAW, Walk, raw_output
from tests.served_demo import REPO, ServedDemo

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The staff pages besides every model's change list (export:diff: once a second release is built).
STAFF_PAGES = {
    "home", "admin:index", "aggregation:dashboard", "aggregation:adjudicate", "aggregation:claim_clusters",
    "aggregation:compare_claims", "aggregation:similar_claim_pairs", "export:releases", "export:release",
    "export:diff",
    "admin:crawler_crawlrun_start", "admin:crawler_crawlrun_change", "admin:pipeline_pipelinerun_change",
    "admin:annotation_job_change", "admin:aggregation_aggregationrun_change", "api-root", "api-docs",
    "jobs:new", "jobs:job", "teams:teams", "export:preview",
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


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(30_000)
            yield page
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def walk(served_demo: ServedDemo, second_release: str) -> Iterator[Walk]:
    """Every page reached from `/` by clicking, once for the tests that read it (a walk takes minutes)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with browser() as page:
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

            walked = Walk(served_demo.base)
            walked.visit(page, [])
            yield walked


def found_in(walk: Walk, patterns: dict[str, re.Pattern[str]]) -> str:
    """What the pages show of `patterns`: counted by page and form, then the first few in context."""
    found = [(url, hit) for url, text in walk.texts.items() for hit in raw_output(text, patterns)]
    kinds = Counter(f"{urlsplit(url).path}: {hit.split(':')[0]}" for url, hit in found)
    listed = "\n".join(f"{n:5} {kind}" for kind, n in kinds.most_common())
    return (
        f"{len(found)} raw forms\n{listed}\n" + "\n".join(f"{url}: {hit}" for url, hit in found[:20])
        if found
        else ""
    )


def test_every_staff_page_is_reached_from_the_home_page_by_clicking(walk: Walk, second_release: str) -> None:
    missing = (STAFF_PAGES | every_change_list()) - set(walk.pages)
    assert missing == set(), f"not reached by clicking from /: {sorted(missing)}"
    diff = walk.texts[walk.pages["export:diff"]]
    # The diff the walk meets first: the second release against an earlier one (demo-1, or the
    # imported PERSPECTRUM release, by the order of the links on the way).
    assert f" → {second_release}" in diff and "Claims that changed split" in diff
    assert walk.refused == [], "links that answer 4xx or 5xx:\n" + "\n".join(walk.refused)
    assert found_in(walk, RAW) == ""


def test_no_page_shows_raw_identifiers(walk: Walk) -> None:
    assert found_in(walk, IDENTIFIERS) == ""


def test_the_demo_output_speaks_plainly(served_demo: ServedDemo) -> None:
    assert "Demo pipeline" in served_demo.demo_output
    assert raw_output(served_demo.demo_output, RAW) == []
    assert f"Staff login for {served_demo.base}/ : admin / " in served_demo.demo_output
