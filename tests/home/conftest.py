from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.annotation.test_browser import ARGS


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Debian's Chromium through Playwright; each person of a test opens their own context in it."""
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser_page(browser: Any) -> Any:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(30_000)
    return page
