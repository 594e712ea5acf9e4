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
    ],
)
def test_plain_words_pass(text: str) -> None:
    assert raw_output(text) == []
