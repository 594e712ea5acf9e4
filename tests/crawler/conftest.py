"""Crawler test fixtures: where the saved pages are (the shared ones and those built here)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]
# The same folder the spider contracts read (`shared:` in @fixture), STANCEWORK_FIXTURES_DIR included.
SHARED_FIXTURES = Path(settings.SHARED_FIXTURES_DIR)
IDEBATE_PAGES = SHARED_FIXTURES / "idebate" / "pages"
IDEBATE_EXPECTED = SHARED_FIXTURES / "idebate" / "expected"
PROCON_QUOTES = SHARED_FIXTURES / "procon" / "medicalmarijuana-view-answers-001325-2015-07.html"
# Pages built here from the structure docs/design/construction.md documents (no saved page of these layouts
# exists).
BUILT = REPO / "tests" / "fixtures" / "crawler"


@pytest.fixture
def crawl_env(tmp_path: Path, migrated_sqlite: Path) -> dict[str, str]:
    db = tmp_path / "db.sqlite3"
    shutil.copy(migrated_sqlite, db)
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "CRAWLER_DIR": str(tmp_path / "crawler"),
        "CRAWLER_DOWNLOAD_DELAY_MS": "0",
        "CRAWLER_AUTOTHROTTLE": "0",
        "CRAWLER_PROGRESS_SECONDS": "1",
        "LOG_LEVEL": "WARNING",
    }
