"""A spider contract that serves a saved page, so `scrapy check` runs offline.

`@fixture <path>` replaces `@url`: the callback is tested on the saved page through Scrapy's file://
handler, never on the live site. The path is relative to the repository root, or with `shared:` to
the shared fixtures folder (settings.SHARED_FIXTURES_DIR).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from scrapy.contracts import Contract

from crawler.targets import FIXTURE_META


class FixtureContract(Contract):
    name = "fixture"

    def adjust_request_args(self, args: dict[str, Any]) -> dict[str, Any]:
        name = self.args[0]
        if name.startswith("shared:"):
            path = Path(settings.SHARED_FIXTURES_DIR) / name.removeprefix("shared:")
        else:
            path = Path(settings.BASE_DIR) / name
        path = path.resolve()
        args["url"] = path.as_uri()
        # The one file:// request a crawl may make (crawler.middlewares.CrawlTargets): set here, by the
        # contract, never by anything a crawl is handed.
        args["meta"] = {**(args.get("meta") or {}), FIXTURE_META: True}
        return args
