"""Evidence cleaning as PERSPECTRUM's crawler did it, and the debatewise headline filter."""

from __future__ import annotations

from crawler.parsing.cleaning import clean_evidence, headline_flag, is_reference_line, point_flag, split_notes


def test_markers_urls_and_reference_lines_are_removed() -> None:
    body = [
        "Smokers contribute a disproportionately large amount to the cost of healthcare[1]. "
        "See http://example.org/report for the full figures from the national survey.",
        "[1] Example Survey, 2011, http://example.org",
    ]
    assert clean_evidence(body) == (
        "Smokers contribute a disproportionately large amount to the cost of healthcare. "
        "See for the full figures from the national survey."
    )


def test_sentences_of_five_tokens_or_fewer_are_dropped() -> None:
    body = ["This is far too short. This sentence, however, is comfortably longer than five tokens."]
    assert clean_evidence(body) == "This sentence, however, is comfortably longer than five tokens."


def test_footnote_numbers_glued_to_words_and_trailing_notes_go() -> None:
    body = [
        "The White House believes smokers cost the economy $100 billion annually through lost productivity1. "
        "1 USA Today, 15 Jul 11, Do smokers cost society money.. Accessed 15 Jul 11."
    ]
    assert clean_evidence(body) == (
        "The White House believes smokers cost the economy $100 billion annually through lost productivity."
    )


def test_paragraphs_stay_apart_and_an_all_reference_body_cleans_to_nothing() -> None:
    assert clean_evidence(
        ["First paragraph has more than five tokens in it.", "Second one also has six tokens."]
    ) == ("First paragraph has more than five tokens in it.\n\nSecond one also has six tokens.")
    assert clean_evidence(["[1] Source, 2010.", "2. Another source, accessed 2011"]) == ""


def test_reference_lines_need_a_marker() -> None:
    assert is_reference_line("[ii] The National Campaign for the Arts. 2010.")
    assert is_reference_line("1. Daily News, 13 Jul 11, Cardiovascular disease.Accessed 14 Jul 11.")
    assert not is_reference_line("Governments should do everything they can to discourage smoking.")
    assert split_notes("No notes in this sentence at all.") == ("No notes in this sentence at all.", "")


def test_short_headlines_are_flagged() -> None:
    assert headline_flag("Homework", ["Homework widens the gap between pupils."]).startswith(
        "headline has 1 token"
    )


def test_headlines_repeating_the_bodys_opening_are_flagged() -> None:
    flag = headline_flag(
        "Homework builds the habit of working alone",
        ["Homework builds the habit of working alone without a teacher at hand."],
    )
    assert flag.startswith("headline repeats the body's opening")


def test_a_real_headline_is_not_flagged() -> None:
    assert (
        headline_flag(
            "Homework takes away time children need for play and rest",
            ["Children who spend their evenings on worksheets lose unstructured play."],
        )
        == ""
    )


def test_a_point_without_a_headline_is_flagged_on_every_site() -> None:
    body = ["Homework widens the gap between pupils with help at home and those without."]
    assert point_flag("", body, check_headline=False) == "point has no headline"
    assert point_flag("Homework", body, check_headline=True).startswith("headline has 1 token")
    assert point_flag("Homework", body, check_headline=False) == ""
