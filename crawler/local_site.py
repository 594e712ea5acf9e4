"""A local copy of the idebate Debatabase served from 127.0.0.1, for end-to-end crawls in tests and
for the `make run` demo (which crawls the saved pages in ../shared/fixtures, never the live site).

The 49 debate pages are the real saved ones; the theme listings around them are generated in the
Drupal listing structure docs/design/construction.md describes (`div.debatabase-theme-listing-title a`,
pager `?page=N` from 0),
with vote and login links that the crawler must never request.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROBOTS = b"User-agent: *\nDisallow: /private/\n"


def listing_page(links: list[str], page: int, last: int) -> bytes:
    items = "\n".join(
        f'<div class="debatabase-theme-listing-title"><a href="{href}">{href.rsplit("/", 1)[-1]}</a></div>'
        f'<a class="rate-button" href="{href}?rate=vote{page}">FOR</a>'
        for href in links
    )
    pager = (
        f'<li class="pager-next"><a href="/debatabase/all?page={page + 1}">next</a></li>'
        if page < last
        else ""
    )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Debatabase</title></head><body>"
        f"{items}<a href='/user/login?destination=debatabase'>Log in</a>"
        f"<a href='/private/secret'>members only</a><ul class='pager'>{pager}</ul></body></html>"
    ).encode()


@dataclass
class LocalSite:
    routes: dict[str, bytes]
    delay: float = 0.0
    requested: list[str] = field(default_factory=list)
    # When each request arrived (time.monotonic), beside `requested`.
    arrived: list[float] = field(default_factory=list)
    url: str = ""
    # Wayback stand-in: original URL → archived body, answered at /cdx/search/cdx and /web/<ts>id_/<url>.
    archive: dict[str, bytes] = field(default_factory=dict)

    def cdx(self, query: str) -> bytes:
        """The CDX JSON answer, in two pages joined by a resume key, as the real server pages it."""
        rows = [["20160311120000", original, "200"] for original in sorted(self.archive)]
        half = len(rows) // 2
        if "resumeKey" in parse_qs(query):
            return json.dumps([["timestamp", "original", "statuscode"], *rows[half:]]).encode()
        return json.dumps(
            [["timestamp", "original", "statuscode"], *rows[:half], [], ["next-page-key"]]
        ).encode()

    def archived(self, path: str) -> bytes | None:
        match = re.match(r"^/web/\d+id_/(.+)$", path)
        return self.archive.get(match.group(1)) if match else None

    @classmethod
    def idebate(cls, pages: Path, per_listing: int = 20, extra: dict[str, bytes] | None = None) -> LocalSite:
        routes: dict[str, bytes] = {"/robots.txt": ROBOTS}
        hrefs = []
        for path in sorted(pages.glob("*.html")):
            href = f"/debatabase/theme/{path.stem}"
            routes[href] = path.read_bytes()
            hrefs.append(href)
        for href, body in (extra or {}).items():
            routes[href] = body
            hrefs.append(href)
        chunks = [hrefs[i : i + per_listing] for i in range(0, len(hrefs), per_listing)]
        for number, chunk in enumerate(chunks):
            routes[f"/debatabase/all?page={number}"] = listing_page(chunk, number, len(chunks) - 1)
        routes["/debatabase/all"] = routes["/debatabase/all?page=0"]
        return cls(routes)

    def answer(self, path: str) -> tuple[int, str, bytes]:
        """Record a GET of `path` and answer it: (status, content type, body). `path` may be a whole
        URL, as a client sends it to a proxy (crawler.middlewares.LocalRoutes): its own path counts."""
        if path.startswith(("http://", "https://")):
            whole = urlsplit(path)
            path = whole.path + (f"?{whole.query}" if whole.query else "")
        self.requested.append(path)
        self.arrived.append(time.monotonic())
        parts = urlsplit(path)
        key = parts.path + (f"?{parts.query}" if parts.query else "")
        if parts.path == "/cdx/search/cdx":
            body: bytes | None = self.cdx(parts.query)
        elif parts.path.startswith("/web/"):
            body = self.archived(path)
        else:
            body = self.routes.get(key)
        if self.delay and key.startswith("/debatabase/theme/"):
            time.sleep(self.delay)
        content_type = "text/html; charset=utf-8" if not key.endswith(".txt") else "text/plain"
        return (200 if body is not None else 404), content_type, body or b"not found"

    @contextmanager
    def serve(self, port: int = 0) -> Iterator[LocalSite]:
        """Serve on 127.0.0.1:`port` (when taken, or 0: a port the kernel picks)."""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, content_type, body = site.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        except OSError:
            server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


# Ports derived from a folder's path fall here: above the well-known and registered ports most
# services use, below Linux's default ephemeral range (32768-60999), so rarely taken.
PORT_RANGE = (20000, 32000)


def preferred_port(pages: Path) -> int:
    """The same port for the same folder every time, so a crawl of it keeps one base URL."""
    digest = hashlib.sha256(str(pages.resolve()).encode()).digest()
    low, high = PORT_RANGE
    return low + int.from_bytes(digest[:4], "big") % (high - low)
