"""What the browser tests of the staff pages share: Chromium and the screenshots the docs show."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def screenshot(page: Any, name: str) -> None:
    """Save the whole page as `name` under SCREENSHOTS_DIR, when it is set (docs/screenshots)."""
    if os.environ.get("SCREENSHOTS_DIR"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOTS_DIR"]) / name), full_page=True)
