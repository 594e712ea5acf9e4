"""How much gold a worker is shown, from what their gold answers say of them. Pure: no Django.

A job with ``gold_schedule: adaptive`` shows a worker gold often while their accuracy is uncertain
and rarely once it is known to be above the job's bar, as Mephisto's screening units do: about one
unit in ten at the start, 5% by a hundred units, 1% by a thousand. The belief is a Beta posterior
over the worker's gold answers (a uniform prior); while its lower bound is under the bar (too few
answers, or wrong ones) the worker gets the starting rate again, so gold grows when accuracy drops.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FIXED, ADAPTIVE = "fixed", "adaptive"
GOLD_SCHEDULES = (FIXED, ADAPTIVE)
QUALITY_PARAMS = frozenset({"gold_schedule", "quality_bar", "quality_confidence", "stop_workers"})
# Mephisto's thinning: (items done, share of gold), interpolated on a log scale of items done.
THINNING = ((10, 0.10), (100, 0.05), (1000, 0.01))


class GoldPolicyError(ValueError):
    """Quality parameters that describe no policy (a bar outside (0, 1), an unknown schedule …)."""


@dataclass(frozen=True)
class QualityPolicy:
    """A job's quality parameters: its gold schedule, its bar, and how sure a decision must be."""

    gold_schedule: str = FIXED
    # The accuracy a worker must plausibly have to keep working, and the mass of the intervals.
    quality_bar: float = 0.6
    quality_confidence: float = 0.9
    # Whether a worker whose interval lies wholly below the bar stops getting work in the job.
    stop_workers: bool = False

    def __post_init__(self) -> None:
        if self.gold_schedule not in GOLD_SCHEDULES:
            raise GoldPolicyError(
                f"gold_schedule must be one of {list(GOLD_SCHEDULES)}, not {self.gold_schedule!r}"
            )
        if not 0 < self.quality_bar < 1:
            raise GoldPolicyError(f"quality_bar must be between 0 and 1, not {self.quality_bar}")
        if not 0 < self.quality_confidence < 1:
            raise GoldPolicyError(
                f"quality_confidence must be between 0 and 1, not {self.quality_confidence}"
            )

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> QualityPolicy:
        """The policy a job's parameters name; the defaults for what they leave out."""
        try:
            return cls(
                gold_schedule=str(params.get("gold_schedule", FIXED)),
                quality_bar=float(params.get("quality_bar", cls.quality_bar)),
                quality_confidence=float(params.get("quality_confidence", cls.quality_confidence)),
                stop_workers=_flag(params.get("stop_workers", False)),
            )
        except (TypeError, ValueError) as error:
            raise GoldPolicyError(str(error)) from None

    @property
    def adaptive(self) -> bool:
        return self.gold_schedule == ADAPTIVE

    @property
    def live(self) -> bool:
        """Whether each submit is followed by an estimate of the worker (the schedule and stops read it)."""
        return self.adaptive or self.stop_workers


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).lower() in {"true", "1", "yes"}:
        return True
    if str(value).lower() in {"false", "0", "no", ""}:
        return False
    raise GoldPolicyError(f"stop_workers must be true or false, not {value!r}")


def beta_interval(successes: int, failures: int, confidence: float) -> tuple[float, float]:
    """The central `confidence` interval of Beta(1 + successes, 1 + failures)."""
    from scipy.special import betaincinv  # here, not at the top: most processes never need SciPy

    tail = (1 - confidence) / 2
    # The inverse of the regularised incomplete beta function is the Beta's quantile function.
    low, high = betaincinv(1 + successes, 1 + failures, [tail, 1 - tail])
    return float(low), float(high)


def thinned_rate(items_done: int) -> float:
    """Mephisto's share of gold for a worker proven above the bar, after `items_done` items."""
    (first_n, first_rate), (last_n, last_rate) = THINNING[0], THINNING[-1]
    if items_done <= first_n:
        return first_rate
    if items_done >= last_n:
        return last_rate
    for (n0, r0), (n1, r1) in itertools.pairwise(THINNING):
        if items_done <= n1:
            share = (math.log(items_done) - math.log(n0)) / (math.log(n1) - math.log(n0))
            return r0 + share * (r1 - r0)
    return last_rate  # unreachable: the last point ends the loop


def gold_rate(policy: QualityPolicy, gold_correct: int, gold_answered: int, items_done: int) -> float:
    """The share of a worker's next items that should be gold."""
    low, _ = beta_interval(gold_correct, gold_answered - gold_correct, policy.quality_confidence)
    if low < policy.quality_bar:
        return THINNING[0][1]
    return thinned_rate(items_done)


def gold_count(rate: float, items: int, rng: random.Random) -> int:
    """How many gold items to add to a HIT of `items` items: the expected number, rounded up or down
    at random so the long-run share is `rate` even when it is under one item per HIT."""
    expected = rate * items / (1 - rate)  # gold is a share of all the items shown, gold included
    whole = math.floor(expected)
    return whole + (1 if rng.random() < expected - whole else 0)


def gold_places(items: int, gold: int, rng: random.Random) -> list[int]:
    """Where `gold` gold items go among `items` others (positions in the merged list, ascending)."""
    return sorted(rng.sample(range(items + gold), gold))
