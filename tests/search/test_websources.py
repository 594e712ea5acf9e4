"""Web search sources for step 2c: the offline file, the API client's request and answer, sentences."""

from __future__ import annotations

import json

import pytest

from search.websources import (
    BraveSearchSource,
    FileWebSource,
    WebPage,
    WebSearchError,
    parse_brave_response,
    sentences,
    split_sentences,
)
from tests.search.conftest import FIXTURES


def test_file_source_returns_lines_for_every_query_and_lines_for_this_query() -> None:
    source = FileWebSource(FIXTURES / "web_pages.jsonl")
    assert [p.url for p in source.search("vaccination", 10)] == [
        "https://example.org/a",
        "https://example.org/b",
        "https://example.org/c",
    ]
    assert "https://example.org/d" in [p.url for p in source.search("Some other query", 10)]


def test_file_source_ranks_pages_by_the_words_they_share_with_the_query() -> None:
    source = FileWebSource(FIXTURES / "web_pages.jsonl")
    assert [p.url for p in source.search("zoos breed endangered species", 1)] == ["https://example.org/c"]
    assert [p.url for p in source.search("parents choice compulsory vaccination", 1)] == [
        "https://example.org/b"
    ]


def test_file_source_caps_the_result_count() -> None:
    assert len(FileWebSource(FIXTURES / "web_pages.jsonl").search("x", 2)) == 2


def test_file_source_reports_a_missing_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WebSearchError, match="cannot read"):
        FileWebSource(tmp_path / "absent.jsonl").search("x")


def test_split_sentences_drops_fragments_and_markup() -> None:
    text = (
        "<b>Vaccines</b> protect children from measles. Short one. Dr. Smith agrees? "
        "Herd immunity protects the very young!"
    )
    assert split_sentences(text) == [
        "Vaccines protect children from measles.",
        "Herd immunity protects the very young!",
    ]


def test_sentences_are_deduplicated_across_pages_and_keep_their_url() -> None:
    pages = [
        WebPage("https://a", "", "Zoos save endangered species from extinction."),
        WebPage(
            "https://b",
            "",
            "zoos save endangered species from extinction. Zoos teach children about wild animals.",
        ),
    ]
    assert [(s.url, s.text) for s in sentences(pages)] == [
        ("https://a", "Zoos save endangered species from extinction."),
        ("https://b", "Zoos teach children about wild animals."),
    ]


def test_api_client_needs_a_key() -> None:
    with pytest.raises(WebSearchError, match="WEB_SEARCH_API_KEY"):
        BraveSearchSource("")


def test_api_request_carries_the_key_and_the_query() -> None:
    request = BraveSearchSource("k3y").request("claim + perspective", 10)
    assert request.get_header("X-subscription-token") == "k3y"
    assert "q=claim+%2B+perspective" in request.full_url
    assert "count=10" in request.full_url


def test_recorded_api_answer_parses_to_pages_with_snippet_text() -> None:
    pages = parse_brave_response(json.loads((FIXTURES / "brave_web_response.json").read_text()))
    assert [p.url for p in pages] == ["https://example.org/vaccines", "https://example.net/rights"]
    assert pages[0].title == "Why vaccination matters"
    assert pages[0].text.startswith("Vaccination protects children from measles and polio.")
    assert "Herd immunity shields" in pages[0].text
