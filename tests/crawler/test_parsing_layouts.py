"""The layouts the sites really used beyond those docs/design/construction.md describes: idebate.net
counterpoints, procon's 2018 quote
boxes, 2019–20 Top 10 columns and 2020 argument containers, and a 2018 topic page checked against
the PERSPECTRUM authors' own crawl of it. Fixtures: tests/fixtures/crawler/README.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from crawler.parsing import DebateRecord, parse_debate
from crawler.parsing.html import squash
from crawler.parsing.sentences import first_sentence, split_sentences
from tests.crawler.conftest import BUILT


def parse_built(site: str, name: str, url: str = "x") -> DebateRecord:
    return parse_debate(site, (BUILT / name).read_bytes(), url)


def test_idebate_net_counterpoint_is_split_from_the_point_at_its_marker() -> None:
    record = parse_built("idebate", "idebate/net-debate-counterpoints.html")
    first, second, against = record.points
    assert first.body == [
        "When the UK ended charges at its national museums in 2001, visits rose sharply"
        " in the following year.[1]",
        "Families on low incomes are the most deterred by a ticket price.",
    ]
    assert first.counterpoint == [
        "Most of the extra visits came from people who already visited museums, not from new audiences."
    ]
    # The marker may also open the counterpoint's own paragraph.
    assert second.counterpoint == [
        "Keeping a collection safe costs money every year,"
        " and visitors who use it can fairly share that cost."
    ]
    assert not any("COUNTERPOINT" in text for text in second.body + second.counterpoint)
    assert (against.side, against.counterpoint) == ("con", [])


def test_idebate_net_page_without_markers_keeps_its_whole_body() -> None:
    record = parse_built("idebate", "idebate/net-debate.html")
    assert all(point.counterpoint == [] for point in record.points)
    assert record.points[0].body[-1] == "[1] Example Health Survey, 2019."


def test_procon_2018_quote_boxes_take_the_first_real_sentence_as_headline() -> None:
    record = parse_built("procon", "procon/quote-boxes-2018.html")
    assert record.layout == "newblue"
    assert [p.side for p in record.points] == ["pro", "pro", "con"]
    prop, us, doctor = record.points
    # Neither "Prop." nor "U.S." nor "Dr." ends a sentence.
    assert prop.headline == (
        "California's law [Prop. 215] lets patients with a doctor's recommendation use marijuana for pain."
    )
    assert us.headline == "Patients in the U.S. report fewer side effects with cannabis than with opioids."
    assert doctor.headline.startswith("Smoked marijuana has not passed the trials Dr. Smith and the FDA")
    # Who said it is a reference, not part of the quote.
    assert prop.references == ["Jane Example, MD, physician, in a 2018 interview with the Example Journal"]
    assert prop.body[0].endswith('Other states have followed with laws of their own."')


def test_procon_top10_pairs_pro_and_con_columns_and_uses_the_bold_headline() -> None:
    record = parse_built("procon", "procon/top10-2019.html")
    assert record.layout == "top10"
    assert record.motion == "Should the Death Penalty Be Legal?"
    assert [(p.side, p.site_point_id) for p in record.points] == [
        ("pro", "pro-1"),
        ("pro", "pro-2"),
        ("con", "con-1"),
        ("con", "con-2"),
    ]
    morality = record.points[0]
    assert morality.headline == "Justice requires a punishment that fits the crime."
    assert morality.body == [
        "Supporters argue that some murders are so grave that no lesser penalty answers them."
    ]
    # No bold intro: the "PRO:" label goes, and "U.S." does not end the first sentence.
    assert record.points[1].headline == "Life sentences cost the U.S. states more than is often claimed."


def test_procon_2020_argument_containers_take_side_from_h3_and_headline_from_h4() -> None:
    record = parse_built("procon", "procon/argument-container-2020.html")
    assert record.layout == "argument-container"
    assert record.motion == "Should Students Have to Wear School Uniforms?"
    assert [(p.side, p.site_point_id, p.headline) for p in record.points] == [
        ("pro", "Pro 1", "School uniforms deter crime and increase student safety."),
        ("con", "Con 1", "School uniforms restrict freedom of expression."),
        ("pro", "Pro 2", "Uniforms keep the focus on learning."),
    ]
    assert record.points[0].body == [
        "In Long Beach, California, reports of fights fell after uniforms were required.",
        "Principals in several districts reported fewer thefts of clothing.",
    ]


def test_a_2018_topic_page_gives_the_texts_the_2018_crawl_recorded() -> None:
    raw = Path(settings.PERSPECTRUM_DIR) / "raw_data" / "procon.json"
    if not raw.exists():
        pytest.skip(f"the raw 2018 crawl is not at {raw}")
    golf = next(
        d for d in json.loads(raw.read_text(encoding="utf-8")) if d["url"] == "https://golf.procon.org"
    )
    record = parse_built("procon", "procon/golf-topic-2018.html", golf["url"])
    expected = [("pro", p) for p in golf["perspectives_for"][:2]] + [
        ("con", p) for p in golf["perspectives_against"][:2]
    ]
    assert len(record.points) == len(expected)
    for point, (side, raw_point) in zip(record.points, expected, strict=True):
        assert (point.side, point.headline) == (side, raw_point["perspective_title"].strip())
        body = squash(" ".join(point.body))
        # Every fragment of the 2018 text is there, in order; what it lost between them (an italic
        # case name) is kept here.
        position = 0
        for fragment in filter(None, (squash(f) for f in raw_point["argument"]["description"])):
            position = body.index(fragment, position) + len(fragment)
    assert "In PGA Tour, Inc. v. Martin (2001), the justices" in " ".join(record.points[3].body)


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            '"California\'s law [Prop. 215] passed in 1996. It was the first."',
            "\"California's law [Prop. 215] passed in 1996.",
        ),
        ("The U.S. Senate voted. Then the House did.", "The U.S. Senate voted."),
        ("Dr. King spoke on Jan. 5 in St. Louis. Crowds came.", "Dr. King spoke on Jan. 5 in St. Louis."),
        ("Smith et al. found no effect (p. 4). Others did.", "Smith et al. found no effect (p. 4)."),
        ('Is it legal? "Yes," said the court.', "Is it legal?"),
        ("No boundary at all", "No boundary at all"),
    ],
)
def test_first_sentence_does_not_end_at_abbreviations(text: str, first: str) -> None:
    assert first_sentence(text) == first


def test_split_sentences_keeps_closing_quotes_with_their_sentence() -> None:
    assert split_sentences('He said "stop." Then he left.') == ['He said "stop."', "Then he left."]
