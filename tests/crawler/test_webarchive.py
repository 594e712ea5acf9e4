"""Wayback CDX queries and snapshots, and the links a crawler must never follow."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from crawler.linkrules import forbidden_reason
from crawler.webarchive import (
    CdxError,
    cdx_query,
    original_url,
    parse_cdx,
    snapshot_url,
    strip_archive_markup,
)
from tests.crawler.conftest import BUILT


def test_cdx_query_asks_for_one_successful_html_capture_per_url_in_range() -> None:
    query = parse_qs(urlsplit(cdx_query("idebate.org/debatabase/*", "2012", "2019")).query)
    assert query["url"] == ["idebate.org/debatabase/*"]
    assert (query["from"], query["to"]) == (["2012"], ["2019"])
    assert query["filter"] == ["statuscode:200", "mimetype:text/html"]
    assert query["collapse"] == ["urlkey"]
    assert query["showResumeKey"] == ["true"]


def test_cdx_answer_gives_captures_and_the_resume_key() -> None:
    captures, resume = parse_cdx((BUILT / "archive" / "cdx-idebate.json").read_text())
    assert [c.timestamp for c in captures] == ["20160311120000", "20170102080910", "20171105101010"]
    assert resume == "idebate.org/debatabase/health/zzz 20171105101010"
    assert captures[0].snapshot_url.startswith(
        "https://web.archive.org/web/20160311120000id_/https://idebate.org/"
    )


def test_a_cdx_error_page_is_an_error_not_a_crash() -> None:
    with pytest.raises(CdxError):
        parse_cdx("<html>Service unavailable</html>")
    assert parse_cdx("") == ([], "")


def test_archive_urls_map_back_to_the_original() -> None:
    assert original_url(snapshot_url("20150101", "http://idebate.org/a")) == (
        "http://idebate.org/a",
        "20150101",
    )
    assert original_url("/web/2015im_/idebate.org/b") == ("http://idebate.org/b", "2015")
    assert original_url("https://idebate.org/c") == ("https://idebate.org/c", "")


def test_the_archive_toolbar_is_removed() -> None:
    toolbar = b"<!-- BEGIN WAYBACK TOOLBAR INSERT --><div>toolbar</div><!-- END WAYBACK TOOLBAR INSERT -->"
    body = b"<html>" + toolbar + b"<p>x</p></html>"
    assert strip_archive_markup(body) == b"<html><p>x</p></html>"


@pytest.mark.parametrize(
    "url",
    [
        "https://idebate.org/debatabase/health/house-would-ban?rate=tkEM1Yq",
        "http://archive.idebate.org/user/login",
        "https://idebate.org/user/login?destination=debatabase",
        "https://debatewise.org/wp-login.php",
        "https://idebate.org/comment/reply/1934",
        "http://medicalmarijuana.procon.org/view.answers.reader-comments.php?questionID=1325",
    ],
)
def test_vote_login_and_comment_links_are_forbidden(url: str) -> None:
    assert forbidden_reason(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://idebate.org/debatabase/health?page=2",
        "https://idebate.org/debatabase/health-addiction/house-would-deny-smokers-access-state",
        "http://medicalmarijuana.procon.org/view.answers.php?questionID=001325",
    ],
)
def test_listing_and_debate_links_are_allowed(url: str) -> None:
    assert forbidden_reason(url) == ""
