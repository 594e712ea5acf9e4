"""MkDocs hooks (mkdocs.yml `hooks:`): the generated reference pages and the guides in the nav.

- `reference/commands.md`: every management command of the project, from its own argparse parser;
- `reference/endpoints.md`: every API operation, from the OpenAPI schema drf-spectacular serves;
- `reference/settings.md`: every environment variable, from its one comment in config/settings.py;
- the nav's "Guides" section: every page under `docs/guide/`, whoever added it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GUIDES = "guide"
COMMANDS_PAGE = "reference/commands.md"
ENDPOINTS_PAGE = "reference/endpoints.md"
SETTINGS_PAGE = "reference/settings.md"


def _django() -> None:
    """Django set up with the project's settings (nothing is read from or written to a database)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def on_config(config: Any) -> Any:
    """Add every page under docs/guide/ to the nav: its index first, then the others by file name."""
    guides = sorted(
        (Path(config["docs_dir"]) / GUIDES).glob("*.md"),
        key=lambda page: (page.name != "index.md", page.name),
    )
    if guides and config["nav"] is not None:
        config["nav"].append({"Guides": [f"{GUIDES}/{page.name}" for page in guides]})
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    _django()
    from docs_build.reference import commands_page, endpoints_page
    from docs_build.settings_reference import settings_page

    files.append(File.generated(config, COMMANDS_PAGE, content=commands_page()))
    files.append(File.generated(config, ENDPOINTS_PAGE, content=endpoints_page()))
    files.append(File.generated(config, SETTINGS_PAGE, content=settings_page()))
    return files
