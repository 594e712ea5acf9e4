"""The walk's scan catches every raw form a page must not show, and lets plain words through."""

from __future__ import annotations

import pytest

from tests.home.walk import raw_output


@pytest.mark.parametrize(
    "text",
    [
        "Stance: 2 MILDLY_SUPPORT",
        "label NO_MAJORITY_LABEL",
        "task type vast_stance",
        "topics: health_and_medicine, law",
        'filters {"claims": [1, 2]}',
        "agreement 0.3333333333333333",
        "simulated True",
        "simulated\tFalse\t3",
        "reliability\tNone\t0.5",
        "{'old': 1}",
        "expires\t2026-12-06T14:38:23.955285+00:00",  # a moment as JSON holds it
        "gold: True, right: False",
        "system wrote_over job 1",
    ],
)
def test_each_raw_form_is_caught(text: str) -> None:
    assert raw_output(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "Stance: 2 Mildly supports, 1 Supports",
        "perspectrum_with_answers_vdemo-1.json (2,345 bytes)",
        "or run manage.py aggregate_job 3",
        "var/releases/demo-1/jsonl/annotations.jsonl",
        "agreement 0.3333, κ 0.41",
        "None of the 40 sampled items is adjudicated yet.",
        "SUPPORT and UNDERMINE",
        "Mode: saved pages (http://127.0.0.1:8765/)",
        # The corpus's and the crawled pages' own words: a title, a URL's query in a bibliography.
        "I don't think there is any one True Meaning of Christmas",
        "True democracy cannot exist in an individual",
        "http://copy.law.cam.ac.uk/cam/tools/request/showRepresentation?id=representation_uk_1710",
        "http://portal.unesco.org/en/ev.php-URL_ID=13039&URL_DO=DO_TOPIC&URL_SECTION=201.html, UNESCO",
    ],
)
def test_plain_words_pass(text: str) -> None:
    assert raw_output(text) == []
