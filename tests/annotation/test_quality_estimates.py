"""A worker's live estimate: gold and agreement with the current decisions, with its interval."""

from __future__ import annotations

from annotation.quality.estimates import Evidence, agreement, current_decision, estimate, should_stop
from annotation.quality.gold_schedule import QualityPolicy

STOPPING = QualityPolicy(quality_bar=0.5, stop_workers=True)


def test_the_current_decision_is_the_others_majority_and_nothing_on_a_tie_or_too_few() -> None:
    assert current_decision(["A", "A", "B"]) == "A"
    assert current_decision(["A", "B"]) is None
    assert current_decision(["A"]) is None
    assert current_decision(iter(["B", "B"])) == "B"  # read once, as a generator gives it


def test_agreement_counts_only_items_with_a_decision() -> None:
    answers = {"i1": "A", "i2": "B", "i3": "A"}
    others = {"i1": ["A", "A"], "i2": ["A", "A"], "i3": ["A"]}
    assert agreement(answers, others) == (2, 1)


def test_gold_and_agreement_are_trials_of_one_posterior() -> None:
    found = estimate(Evidence(gold_answered=10, gold_correct=9, compared=40, agreed=36), 0.9)
    assert found.trials == 50
    assert found.accuracy == (1 + 45) / (2 + 50)
    assert found.low < found.accuracy < found.high


def test_a_worker_who_answers_the_opposite_is_stopped_once_the_evidence_is_clear() -> None:
    early = estimate(Evidence(gold_answered=1, gold_correct=0, compared=2, agreed=0), 0.9)
    later = estimate(Evidence(gold_answered=3, gold_correct=0, compared=20, agreed=2), 0.9)
    assert not should_stop(early, STOPPING)
    assert should_stop(later, STOPPING)


def test_a_good_worker_with_a_bad_start_is_not_stopped() -> None:
    found = estimate(Evidence(gold_answered=2, gold_correct=0, compared=6, agreed=3), 0.9)
    assert not should_stop(found, STOPPING)


def test_nobody_is_stopped_in_a_job_that_does_not_stop_workers() -> None:
    hopeless = estimate(Evidence(compared=100, agreed=0), 0.9)
    assert not should_stop(hopeless, QualityPolicy(quality_bar=0.5))
