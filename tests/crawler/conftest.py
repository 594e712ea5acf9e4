"""Crawler test fixtures: saved pages, and a local site served from 127.0.0.1 for end-to-end crawls."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"
IDEBATE_PAGES = SHARED_FIXTURES / "idebate" / "pages"
IDEBATE_EXPECTED = SHARED_FIXTURES / "idebate" / "expected"
PROCON_QUOTES = SHARED_FIXTURES / "procon" / "medicalmarijuana-view-answers-001325-2015-07.html"
# Pages built here from SPEC §7's documented structure (no saved page of these layouts exists).
BUILT = REPO / "tests" / "fixtures" / "crawler"


@pytest.fixture(scope="session")
def idebate_slugs() -> list[str]:
    if not IDEBATE_PAGES.is_dir():
        pytest.fail(f"the idebate fixture pages are expected at {IDEBATE_PAGES}")
    return sorted(p.stem for p in IDEBATE_PAGES.glob("*.html"))
