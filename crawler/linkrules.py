"""Which links a crawler must never request. Pure.

`?rate=` links on idebate cast a vote; login, registration and comment links either change state
or lead nowhere useful. The spiders filter with this, and a downloader middleware enforces it.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

FORBIDDEN_QUERY_KEYS = frozenset({"rate", "destination", "vote", "replytocom"})
FORBIDDEN_PATH = re.compile(
    r"/(?:user/(?:login|register|password)|login|logout|register|signin|signup|wp-login\.php|"
    r"comment(?:s)?(?:/|$)|reply(?:/|$)|node/\d+/comments?)|view\.answers\.reader-comments\.php",
    re.I,
)


def forbidden_reason(url: str) -> str:
    """Why `url` must not be requested, or "" when it may be."""
    parts = urlsplit(url)
    keys = set(parse_qs(parts.query, keep_blank_values=True))
    voted = keys & FORBIDDEN_QUERY_KEYS
    if voted:
        return f"forbidden query parameter {sorted(voted)[0]!r}"
    if FORBIDDEN_PATH.search(parts.path):
        return "login, vote or comment link"
    if parts.fragment.startswith("comment"):
        return "comment link"
    return ""
