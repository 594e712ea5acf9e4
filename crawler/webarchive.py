"""The Internet Archive's Wayback Machine: CDX queries, snapshot URLs, and undoing the archive's markup.

Pure. The CDX server API (https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server)
lists captures for a URL pattern and date range, paged with a resume key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urlencode

WAYBACK = "https://web.archive.org"
# An archived page's links point back into the archive: /web/<timestamp>[flags]/<original URL>.
ARCHIVED_LINK = re.compile(r"^(?:https?://[^/]+)?/web/(\d{1,14})[a-z_]*/(.+)$")
TOOLBAR = re.compile(rb"<!-- BEGIN WAYBACK TOOLBAR INSERT -->.*?<!-- END WAYBACK TOOLBAR INSERT -->", re.S)
ARCHIVE_HEAD = re.compile(rb"<script[^>]*(?:archive\.org|wombat|__wm\.)[^>]*>.*?</script>", re.S | re.I)


class CdxError(ValueError):
    """The CDX server answered with something that is not a capture list."""


@dataclass(frozen=True)
class Capture:
    timestamp: str
    original: str
    status: str

    @property
    def snapshot_url(self) -> str:
        return snapshot_url(self.timestamp, self.original)


def cdx_query(
    url_pattern: str,
    start: str,
    end: str,
    limit: int = 5000,
    resume_key: str = "",
    base: str = WAYBACK,
    original: str = "",
) -> str:
    """A CDX query URL for successful HTML captures of `url_pattern`, one per URL, between two timestamps.

    `original`, when given, is a regex the server matches against each capture's original URL.
    """
    params = [
        ("url", url_pattern),
        ("from", start),
        ("to", end),
        ("output", "json"),
        ("fl", "timestamp,original,statuscode"),
        ("filter", "statuscode:200"),
        ("filter", "mimetype:text/html"),
        ("collapse", "urlkey"),
        ("limit", str(limit)),
        ("showResumeKey", "true"),
    ]
    if original:
        params.append(("filter", f"original:{original}"))
    if resume_key:
        params.append(("resumeKey", resume_key))
    return f"{base}/cdx/search/cdx?{urlencode(params)}"


def parse_cdx(text: str) -> tuple[list[Capture], str]:
    """(captures, resume key or "") from a CDX JSON answer."""
    if not text.strip():
        return [], ""
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as error:
        raise CdxError(f"CDX answer is not JSON: {error}") from None
    if not isinstance(rows, list) or (rows and rows[0][:2] != ["timestamp", "original"]):
        raise CdxError("CDX answer has no timestamp/original header")
    captures: list[Capture] = []
    resume_key = ""
    body = rows[1:]
    # With showResumeKey the last two rows are an empty row and [resume key].
    if len(body) >= 2 and body[-2] == [] and len(body[-1]) == 1:
        resume_key = body[-1][0]
        body = body[:-2]
    for row in body:
        if len(row) >= 2:
            captures.append(Capture(row[0], row[1], row[2] if len(row) > 2 else ""))
    return captures, resume_key


def snapshot_url(timestamp: str, url: str, base: str = WAYBACK) -> str:
    """The raw capture: the `id_` flag asks the archive for the page as crawled, without its own markup."""
    return f"{base}/web/{timestamp}id_/{url}"


def original_url(url: str) -> tuple[str, str]:
    """(original URL, timestamp) for an archive URL; (url, "") for any other URL."""
    match = ARCHIVED_LINK.match(url)
    if not match:
        return url, ""
    original = match.group(2)
    if not original.startswith(("http://", "https://")):
        original = "http://" + original.lstrip("/")
    return original, match.group(1)


def strip_archive_markup(body: bytes) -> bytes:
    """Remove the toolbar and scripts the archive injects when a capture is served without `id_`."""
    return ARCHIVE_HEAD.sub(b"", TOOLBAR.sub(b"", body))
