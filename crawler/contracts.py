"""A spider contract that serves a saved page, so `scrapy check` runs offline.

`@fixture <path>` (relative to the repository root) replaces `@url`: the callback is tested on the
saved page through Scrapy's file:// handler, never on the live site.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from scrapy.contracts import Contract


class FixtureContract(Contract):
    name = "fixture"

    def adjust_request_args(self, args: dict[str, Any]) -> dict[str, Any]:
        path = (Path(settings.BASE_DIR) / self.args[0]).resolve()
        args["url"] = path.as_uri()
        return args
