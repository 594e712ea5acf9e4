"""The writing classifier: a paste or machine-speed typing is flagged, people typing are not."""

from __future__ import annotations

import random

import pytest

from annotation.quality.writing import WritingSignals, WritingSignalsError, judge

PASSAGES = [
    "Animals feel pain, so the law should protect them from needless suffering.",
    "A ban on smoking in public places protects workers who cannot choose where they breathe.",
    "School uniforms take one daily worry away from children and from their parents.",
    "Paying for university through taxes lets talent, not family wealth, decide who studies.",
    "Nuclear power cuts carbon emissions faster than any other source we can build today.",
]


def human_trace(text: str, rng: random.Random) -> WritingSignals:
    """The signals a person typing `text` gives the page: their own pace (from hurried to slow, each
    key jittered), pauses to think, and typos corrected with backspace."""
    mean_ms = rng.uniform(85, 450)
    clock = typed = deleted = 0.0
    first = None

    def key() -> None:
        nonlocal clock, typed, first
        clock += mean_ms * rng.lognormvariate(0, 0.35)
        if rng.random() < 0.02:
            clock += rng.uniform(1000, 8000)  # a pause to think
        first = clock if first is None else first
        typed += 1

    for _ in text:
        if rng.random() < 0.03:  # a typo of 1–4 characters, then corrected
            wrong = rng.randint(1, 4)
            for _ in range(wrong):
                key()
            deleted += wrong
            clock += wrong * mean_ms * 0.6
        key()
    return WritingSignals(
        typed=int(typed),
        deleted=int(deleted),
        first_key_ms=int(rng.uniform(2000, 30000)),
        typing_ms=int(clock - (first or 0)),
        focus_changes=rng.randint(0, 3),
    )


def test_at_most_one_in_a_hundred_of_200_human_paced_traces_is_flagged() -> None:
    rng = random.Random(47)
    traces = [(human_trace(text, rng), text) for text in (rng.choice(PASSAGES) for _ in range(200))]
    flagged = [trace for trace, text in traces if judge(trace, text)]
    assert len(traces) == 200
    assert len(flagged) <= 2


def test_an_answer_pasted_whole_is_flagged_as_pasted() -> None:
    text = PASSAGES[0]
    reasons = judge(WritingSignals(pasted=len(text), pastes=1, first_key_ms=900), text)
    assert reasons and reasons[0].startswith("pasted")


def test_typing_faster_than_people_type_is_flagged() -> None:
    text = PASSAGES[1]
    reasons = judge(WritingSignals(typed=len(text), typing_ms=len(text) * 20), text)
    assert any("faster than people type" in reason for reason in reasons)


def test_text_that_appeared_without_typing_or_pasting_is_flagged() -> None:
    assert judge(WritingSignals(), PASSAGES[2])


def test_a_passage_retyped_by_hand_is_not_flagged() -> None:
    text = PASSAGES[3]
    assert judge(human_trace(text, random.Random(3)), text) == []


def test_a_short_answer_says_nothing_either_way() -> None:
    assert judge(WritingSignals(pasted=5, pastes=1), "yes, same") == []


@pytest.mark.parametrize(
    "values", [{"typed": -5}, {"typed": "12"}, {"pasted": 10**12}, {"pastes": True}, ["typed", 3]]
)
def test_a_record_the_page_would_not_send_is_refused(values: object) -> None:
    with pytest.raises(WritingSignalsError):
        WritingSignals.from_mapping(values)  # type: ignore[arg-type]


def test_a_record_round_trips_through_its_dict() -> None:
    signals = WritingSignals(typed=40, pasted=3, pastes=1, deleted=2, first_key_ms=1200, typing_ms=9000)
    assert WritingSignals.from_mapping(signals.as_dict()) == signals
