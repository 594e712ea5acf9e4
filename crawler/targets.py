"""Where a crawl may send requests: its site's own hosts, the web archive, and on loopback only the
saved-pages server the crawl's own process started (whose exact origin it is handed).

Checked twice: when a crawl is asked for (the API, the admin, a pipeline's `crawl.start_urls`, the
`crawl` command), so a refused address never becomes a run; and on every request the spider makes
(crawler.middlewares.CrawlTargets), so nothing leaves for an internal service even if an address
slipped into a run, a resumed queue or a redirect. No Django here: the middleware runs in Scrapy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

# Each site's own hosts (and their subdomains); the spiders' allowed_domains are these.
SITE_HOSTS: dict[str, tuple[str, ...]] = {
    "idebate": ("idebate.org", "idebate.net"),
    "procon": ("procon.org", "britannica.com"),
    "debatewise": ("debatewise.org",),
}
# The Wayback Machine, which every site's archive crawl reads.
ARCHIVE_HOSTS = ("web.archive.org",)
# The request meta key that marks `scrapy check`'s saved page (crawler.contracts): the one file://
# request a crawl may make, set by the contract, never by anything a crawl is handed.
FIXTURE_META = "stancework_contract_fixture"
INTERNAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


def allowed_domains(site: str) -> list[str]:
    return [*SITE_HOSTS.get(site, ()), *ARCHIVE_HOSTS]


def origin(url: str) -> str:
    """`http://127.0.0.1:8123/debatabase/all?page=1` → `http://127.0.0.1:8123`."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def refusal(url: str, site: str, origins: Iterable[str] = ()) -> str:
    """Why a crawl of `site` must not request `url` ("" when it may). `origins`: addresses this crawl
    was handed besides its site's hosts (its own saved-pages server; a test rig's sites)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".").lower()
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return f"{url[:200]!r} is not a URL"
    if parts.scheme not in ("http", "https") or not host:
        return f"{url[:200]!r} is not an http(s) URL"
    if any(_same_origin(url, allowed) for allowed in origins):
        return ""
    if _internal(host):
        return (
            f"{host} is an internal address: a crawl reaches loopback and private addresses only "
            "for the saved-pages server the platform starts for it"
        )
    domains = allowed_domains(site)
    if any(host == domain or host.endswith(f".{domain}") for domain in domains):
        return ""
    return f"{host} is not one of {site}'s hosts ({', '.join(domains)})"


def _same_origin(url: str, allowed: str) -> bool:
    """Whether `url` is at origin `allowed`; `http://127.0.0.1:*` stands for every port of that host
    (a test rig's sites, each on a port the kernel picks)."""
    if allowed.endswith(":*"):
        return origin(url).rsplit(":", 1)[0] == allowed[:-2].lower() and urlsplit(url).port is not None
    return origin(url) == origin(allowed)


def _internal(host: str) -> bool:
    """Loopback, private, link-local and other non-public addresses, and the names of this machine."""
    if host in INTERNAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_global
