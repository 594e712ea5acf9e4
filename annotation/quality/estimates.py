"""A worker's live accuracy, from gold and from agreement with the current decisions. Pure: no Django.

Each gold answer is a trial against a known answer; each other answer is a trial against the current
decision on its item: the job's label model's, where it has decided the item, else the majority of
the other workers' answers, when at least `min_others` have answered it (a tie decides nothing).
Both kinds of trial feed one Beta posterior (uniform prior); its central interval is the estimate's.
A worker whose whole interval lies below the job's bar is, with that confidence, worse than the bar:
they stop getting work in the job, until a person says otherwise. Nobody is rejected by this:
rejecting work is a person's decision.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from annotation.quality.gold_schedule import QualityPolicy, beta_interval

MIN_OTHERS = 2
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Evidence:
    """What is known of one worker in one job: gold answers, and answers compared with a decision."""

    gold_answered: int = 0
    gold_correct: int = 0
    compared: int = 0
    agreed: int = 0

    @property
    def trials(self) -> int:
        return self.gold_answered + self.compared

    @property
    def successes(self) -> int:
        return self.gold_correct + self.agreed


@dataclass(frozen=True)
class Estimate:
    accuracy: float
    low: float
    high: float
    trials: int


def estimate(evidence: Evidence, confidence: float) -> Estimate:
    """The posterior mean of the worker's accuracy and its central interval."""
    successes, failures = evidence.successes, evidence.trials - evidence.successes
    low, high = beta_interval(successes, failures, confidence)
    return Estimate((1 + successes) / (2 + evidence.trials), low, high, evidence.trials)


def should_stop(found: Estimate, policy: QualityPolicy) -> bool:
    """Whether the worker is, with the policy's confidence, below its bar."""
    return policy.stop_workers and found.high < policy.quality_bar


def current_decision(others: Iterable[str], min_others: int = MIN_OTHERS) -> str | None:
    """The majority of the other workers' labels on an item; None with too few of them or a tie."""
    labels = list(others)
    if len(labels) < min_others:
        return None
    counts = Counter(labels).most_common(2)
    if len(counts) == 2 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def agreement(
    answers: Mapping[K, str],
    others: Mapping[K, Sequence[str]],
    decided: Mapping[K, str] | None = None,
    min_others: int = MIN_OTHERS,
) -> tuple[int, int]:
    """(compared, agreed): the worker's `answers` (item → label) against the current decision on each
    item: the label model's, where `decided` (item → label) holds one, else the majority of `others`
    (item → the other workers' labels)."""
    compared = agreed = 0
    for item, label in answers.items():
        against = decision_on(item, others, decided or {}, min_others)
        if against is not None:
            compared += 1
            agreed += against == label
    return compared, agreed


def decision_on(
    item: K, others: Mapping[K, Sequence[str]], decided: Mapping[K, str], min_others: int = MIN_OTHERS
) -> str | None:
    """The current decision on `item`: the label model's where there is one, else the others' majority."""
    if item in decided:
        return decided[item]
    return current_decision(others.get(item, ()), min_others)
