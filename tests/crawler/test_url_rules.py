"""Every debate URL of the PERSPECTRUM authors' real 2018 crawl is recognised, covered by an archive
query, and reached from a listing page of its site; pages that are not debates are not taken for one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from crawler.parsing import archive_patterns, is_debate_url, listing_links
from crawler.parsing.records import ArchivePattern

RAW_DATA = Path(settings.PERSPECTRUM_DIR) / "raw_data"


def _host_and_rest(url: str) -> tuple[str, str]:
    """("host", "/path?query") the way the CDX index keys a URL: no scheme, no port, no leading www."""
    rest = re.sub(r"^[a-z][a-z0-9+.-]*://", "", url, flags=re.I)
    host, slash, tail = rest.partition("/")
    host = host.split(":", 1)[0].lower().removeprefix("www.")
    return host, "/" + tail if slash else "/"


def cdx_covers(pattern: ArchivePattern, url: str) -> bool:
    """Whether the CDX query of `pattern` lists captures of `url` (exact, prefix `*` or domain `*.`)."""
    if pattern.original and not re.fullmatch(pattern.original, url):
        return False
    host, rest = _host_and_rest(url)
    if pattern.url.startswith("*."):
        domain = pattern.url[2:].split("/", 1)[0].lower()
        return host == domain or host.endswith("." + domain)
    want_host, want_rest = _host_and_rest(pattern.url)
    if want_rest.endswith("*"):
        return host == want_host and rest.startswith(want_rest[:-1])
    return host == want_host and rest.rstrip("/") == want_rest.rstrip("/")


def raw_urls(site: str) -> list[str]:
    path = RAW_DATA / f"{site}.json"
    if not path.exists():
        pytest.skip(f"the raw 2018 crawl is not at {path}")
    return [debate["url"] for debate in json.loads(path.read_text(encoding="utf-8"))]


def listing_page(anchors: list[str]) -> str:
    return f"<!DOCTYPE html><html><head><title>index</title></head><body>{''.join(anchors)}</body></html>"


def test_the_raw_2018_crawls_hold_445_distinct_debate_urls() -> None:
    urls = raw_urls("procon") + raw_urls("debatewise")
    assert len(urls) == len(set(urls)) == 445


@pytest.mark.parametrize("site", ["procon", "debatewise"])
def test_every_raw_2018_url_is_a_debate_url_of_its_site(site: str) -> None:
    rejected = [url for url in raw_urls(site) if not is_debate_url(site, url)]
    assert rejected == []


@pytest.mark.parametrize("site", ["procon", "debatewise"])
def test_every_raw_2018_url_is_listed_by_one_of_the_sites_archive_queries(site: str) -> None:
    patterns = archive_patterns(site)
    uncovered = [url for url in raw_urls(site) if not any(cdx_covers(p, url) for p in patterns)]
    assert uncovered == []


def test_the_procon_portal_leads_to_every_topic_site_and_headline_page() -> None:
    urls = raw_urls("procon")
    # The portal linked topic sites absolutely and its own headline pages relatively.
    anchors = [f'<a href="{url.removeprefix("https://www.procon.org")}">topic</a>' for url in urls] + [
        '<a href="https://www.procon.org/index.php">Home</a>'
    ]
    debates, listings = listing_links("procon", listing_page(anchors), "https://www.procon.org/")
    assert sorted(debates) == sorted(urls)
    assert listings == ["https://www.procon.org/index.php"]


def test_the_debatewise_index_leads_to_every_debate_with_or_without_an_id() -> None:
    urls = raw_urls("debatewise")
    anchors = [
        f'<h2 class="hometitle"><a href="{url.removeprefix("https://debatewise.org")}">d</a></h2>'
        for url in urls
    ]
    anchors.append('<div class="navigation"><a href="/page/3/">Older debates</a></div>')
    debates, listings = listing_links("debatewise", listing_page(anchors), "https://debatewise.org/page/2/")
    assert debates == urls
    assert listings == ["https://debatewise.org/page/3/"]


@pytest.mark.parametrize(
    ("site", "url"),
    [
        ("procon", "https://medicalmarijuana.procon.org/view.answers.php?questionID=001325"),
        ("procon", "http://deathpenalty.procon.org/view.resource.php?resourceID=002000"),
        ("procon", "https://aclu.procon.org/top-10-pro-con-arguments/"),
        ("procon", "https://abortion.procon.org/"),
        ("procon", "https://www.britannica.com/procon/death-penalty-debate"),
        ("debatewise", "https://debatewise.org/debates/2915-models-minimum-weight/"),
        ("debatewise", "https://debatewise.org/2915-models-minimum-weight/"),
        ("debatewise", "https://debatewise.org/should-zoos-be-banned/"),
        ("idebate", "https://idebate.org/debatabase/debates/health/house-would-ban-smoking"),
        ("idebate", "https://idebate.net/this-house-would-make-all-museums-free-of-charge~b641/"),
    ],
)
def test_each_url_form_of_each_era_is_a_debate_url_and_archived(site: str, url: str) -> None:
    assert is_debate_url(site, url)
    assert any(cdx_covers(pattern, url) for pattern in archive_patterns(site))


@pytest.mark.parametrize(
    ("site", "url"),
    [
        ("procon", "https://www.procon.org/"),
        ("procon", "https://www.procon.org/index.php"),
        ("procon", "https://medicalmarijuana.procon.org/view.answers.reader-comments.php?questionID=1325"),
        ("procon", "https://videogames.procon.org/sourcefiles/report.pdf"),
        ("procon", "https://www.britannica.com/procon"),
        ("debatewise", "https://debatewise.org/"),
        ("debatewise", "https://debatewise.org/page/2/"),
        ("debatewise", "https://debatewise.org/about/"),
        ("debatewise", "https://debatewise.org/debates/"),
        ("debatewise", "https://debatewise.org/category/politics/"),
        ("debatewise", "https://debatewise.org/wp-login.php"),
        ("idebate", "https://idebate.net/debatabase/Health~c671/"),
    ],
)
def test_pages_that_only_list_or_serve_the_site_are_not_debates(site: str, url: str) -> None:
    assert not is_debate_url(site, url)


def test_a_domain_query_keeps_only_the_form_its_filter_names() -> None:
    (roots, *_) = archive_patterns("procon")
    assert cdx_covers(roots, "http://golf.procon.org/")
    assert not cdx_covers(roots, "http://golf.procon.org/view.answers.php?questionID=1")
    assert not cdx_covers(roots, "http://golf.example.org/")
