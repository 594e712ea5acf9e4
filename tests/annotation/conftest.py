"""Annotation fixtures; browser tests skip, with a reason, where Debian's Chromium is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)
