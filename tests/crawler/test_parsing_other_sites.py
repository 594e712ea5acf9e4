"""debatewise and procon extraction, and pages that must be dropped with a reason.

The debatewise pages, the procon newblue page and the bad pages were built here from the structure
docs/design/construction.md documents (tests/fixtures/crawler/README.md); the procon quotes page is real
(2015).
"""

from __future__ import annotations

import pytest

from crawler.parsing import BadPageError, listing_links, parse_debate
from tests.crawler.conftest import BUILT, IDEBATE_PAGES, PROCON_QUOTES

SMOKERS = IDEBATE_PAGES / "addiction-health-general-healthcare-house-would-deny-smokers-access-state.html"


def test_debatewise_wiki_sides_follow_the_yes_and_no_anchors() -> None:
    record = parse_debate("debatewise", (BUILT / "debatewise" / "wiki-debate.html").read_bytes(), "x")
    assert record.layout == "wiki"
    assert record.motion == "Should homework be banned?"
    assert record.site_debate_id == "1234"
    assert [(p.side, p.site_point_id) for p in record.points] == [
        ("pro", "yes1"),
        ("pro", "yes2"),
        ("con", "no1"),
        ("con", "no2"),
    ]
    # The argument after a bare <a name> anchor is found too.
    assert record.points[2].body[0].startswith("Homework builds the habit")


def test_debatewise_markers_layout_splits_points_at_yes_because_and_no_because() -> None:
    record = parse_debate("debatewise", (BUILT / "debatewise" / "markers-debate.html").read_bytes(), "x")
    assert record.layout == "markers"
    assert record.intro == [
        "Australia and Belgium fine citizens who do not vote; most democracies leave it to choice."
    ]
    pro, con = record.points
    assert (pro.side, pro.headline) == (
        "pro",
        "Compulsory voting gives governments a mandate from the whole people.",
    )
    assert pro.body[-1] == "Turnout in Australia has stayed above ninety percent since fines were introduced."
    assert con.side == "con" and con.headline.startswith("Forcing people to vote")


def test_debatewise_index_links_debates_and_older_pages() -> None:
    debates, listings = listing_links(
        "debatewise", (BUILT / "debatewise" / "home-page-1.html").read_bytes(), "https://debatewise.org/"
    )
    assert debates == [
        "https://debatewise.org/debates/1234-should-homework-be-banned/",
        "https://debatewise.org/debates/1301-should-voting-be-compulsory/",
    ]
    assert listings == ["https://debatewise.org/page/2/"]


def test_procon_quotes_page_yields_every_quote_with_its_side() -> None:
    url = "http://medicalmarijuana.procon.org/view.answers.php?questionID=001325"
    record = parse_debate("procon", PROCON_QUOTES.read_bytes(), url)
    assert record.motion == "Should Marijuana Be a Medical Option?"
    assert record.site_debate_id == "1325"
    assert sum(p.side == "pro" for p in record.points) == 54
    assert sum(p.side == "con" for p in record.points) == 36
    first = record.points[0]
    assert first.site_point_id == "007664"
    assert first.headline.startswith("The evidence is overwhelming that marijuana can relieve")
    assert first.references[0].startswith("Joycelyn Elders, MD, former US Surgeon General")


def test_procon_keeps_text_inside_inline_tags() -> None:
    # The original procon spider lost text inside <i>/<a>; the attribution's <i>Providence Journal</i> stays.
    record = parse_debate("procon", PROCON_QUOTES.read_bytes(), "x")
    assert record.points[0].references[0].endswith("published in the Providence Journal:")


def test_procon_newblue_headline_is_the_bolded_intro() -> None:
    record = parse_debate("procon", (BUILT / "procon" / "newblue-topic.html").read_bytes(), "x")
    assert record.layout == "newblue"
    assert [p.side for p in record.points] == ["pro", "pro", "con"]
    assert record.points[0].headline == "School uniforms may deter crime and increase student safety."
    assert record.points[0].body[0].startswith("In Long Beach, California")


def test_procon_topic_page_links_quotes_pages_but_not_reader_comments() -> None:
    debates, _ = listing_links(
        "procon", (BUILT / "procon" / "topic-home.html").read_bytes(), "http://medicalmarijuana.procon.org/"
    )
    assert debates == [
        "http://medicalmarijuana.procon.org/view.answers.php?questionID=001325",
        "http://medicalmarijuana.procon.org/view.resource.php?resourceID=000881",
    ]


@pytest.mark.parametrize(
    ("site", "page", "reason"),
    [
        ("idebate", "bad/idebate-no-points.html", "no_points"),
        ("idebate", "bad/login-wall.html", "login_wall"),
        ("idebate", "bad/archive-error.html", "archive_error"),
        ("procon", "bad/archive-error.html", "archive_error"),
        ("debatewise", "bad/login-wall.html", "login_wall"),
        ("procon", "debatewise/wiki-debate.html", "no_points"),
    ],
)
def test_bad_page_is_refused_with_its_reason(site: str, page: str, reason: str) -> None:
    with pytest.raises(BadPageError) as caught:
        parse_debate(site, (BUILT / page).read_bytes(), "https://example.org/x")
    assert caught.value.reason == reason


def test_truncated_page_is_refused_not_half_parsed() -> None:
    html = SMOKERS.read_bytes()
    with pytest.raises(BadPageError) as caught:
        parse_debate("idebate", html[: len(html) // 2], "x")
    assert caught.value.reason == "truncated_html"


@pytest.mark.parametrize(
    ("html", "reason"),
    [(b"", "empty_page"), (b"   ", "empty_page"), ("<html><body><p>hello</p></body></html>", "no_title")],
)
def test_empty_or_untitled_page_is_refused(html: str | bytes, reason: str) -> None:
    with pytest.raises(BadPageError) as caught:
        parse_debate("idebate", html, "x")
    assert caught.value.reason in {"empty_page", "no_title"}
    assert caught.value.reason == reason
