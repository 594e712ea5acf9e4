"""Where a machine's labels may be accepted without a person, with a finite-sample guarantee.
Pure module: no Django.

Learn then Test (Angelopoulos, Bates, Candès, Jordan & Lei, "Learn then Test: Calibrating Predictive
Algorithms to Achieve Risk Control", arXiv 2110.01052, 2021): each candidate threshold λ is a
hypothesis H_λ, "the error of the machine's labels accepted at λ, against the people's decision, is
above ε", tested at level δ in a fixed sequence, most confident first, stopping at the first that is
not rejected; fixed-sequence testing bounds the chance of rejecting any true H_λ by δ with no
multiplicity correction. The least confident rejected λ is chosen, so with probability at least 1 − δ
the error of what it accepts is at most ε.

The error bounded is that of this job's own items outside the calibration sample, the items the crowd
will not see. The machine scores every item before anything is paid, so the thresholds are taken from
those scores (shares of the job accepted, in steps of 1%), a function of the scores and the sample's size
alone; the only chance
left is which items fell in the random calibration sample. The p-value is therefore the exact
hypergeometric tail (sampling without replacement from the job), the finite-population form of the
Clopper–Pearson exact binomial test (Clopper & Pearson, Biometrika 1934) that it approaches for a large
job. If no threshold is rejected, nothing is accepted from the machine, and the routing says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import hypergeom

from aggregation.label_models import FloatArray, IntArray

# Fixed-sequence testing stops at its first failure, so the first threshold tested must accept enough
# calibration items for a crowd's occasional mistake among them not to end the sequence at once: four
# times the fewest that could show the bound with no disagreement at all.
START_FACTOR = 4
STEP_SHARE = 0.01


class RoutingError(ValueError):
    """A target error or confidence outside (0, 1), or scores and outcomes that do not match."""


def fewest_items(target_error: float, delta: float) -> int:
    """The fewest calibration items that can bound the error at ``target_error``: all of them right,
    (1 − ε)^n ≤ δ."""
    return math.ceil(math.log(delta) / math.log1p(-target_error))


@dataclass(frozen=True)
class Routing:
    """The chosen threshold (None: nothing is accepted from the machine) and what it rests on."""

    threshold: float | None
    target_error: float
    delta: float  # the chance the bound fails
    calibration_items: int
    accepted: int  # calibration items at or above the threshold
    errors: int  # of those, how many disagree with the people's decision
    share_accepted: float  # of the job's other items, at or above the threshold
    p_value: float  # of the chosen threshold's test (1.0 when nothing is accepted)
    reason: str


def first_share(calibration_items: int, target_error: float, delta: float) -> float:
    """The share of the job the first threshold accepts (at most all of it)."""
    wanted = START_FACTOR * fewest_items(target_error, delta) / max(calibration_items, 1)
    return min(math.ceil(wanted / STEP_SHARE) * STEP_SHARE, 1.0)


def candidate_thresholds(scores: FloatArray, first: float) -> FloatArray:
    """The scores at which a share ``first``, then 1% more at each step up to all, of the job's items
    are accepted, most confident first."""
    shares = np.arange(round(first / STEP_SHARE), round(1 / STEP_SHARE) + 1) * STEP_SHARE
    return np.unique(np.quantile(scores, 1 - shares, method="lower"))[::-1]


def p_values(
    accepted_all: IntArray, accepted_sample: IntArray, errors: IntArray, target_error: float
) -> FloatArray:
    """P(as few errors in the sample | the other accepted items' error just above ``target_error``):
    the sample is drawn without replacement from the accepted items, some number of them wrong."""
    others = accepted_all - accepted_sample
    fewest_wrong = errors + np.floor(target_error * others).astype(np.intp) + 1
    possible = fewest_wrong <= accepted_all  # else no count of wrong items could make the error that high
    tail = hypergeom.cdf(errors, accepted_all, np.minimum(fewest_wrong, accepted_all), accepted_sample)
    return np.where(possible, tail, 0.0).astype(np.float64)


def choose_threshold(
    scores: FloatArray,
    sample: npt.NDArray[np.bool_],
    agrees: npt.NDArray[np.bool_],
    target_error: float,
    delta: float,
) -> Routing:
    """The lowest score at which the machine's labels may be accepted for the job's items outside the
    calibration ``sample``: error ≤ ``target_error`` against the people's decision with probability
    ≥ 1 − ``delta``. ``scores`` and ``sample`` cover every item; ``agrees`` the sample's, in order."""
    if not (0 < target_error < 1 and 0 < delta < 1):
        raise RoutingError(f"target error {target_error} and confidence {delta} must both be in (0, 1)")
    scores, sample = np.asarray(scores, dtype=np.float64), np.asarray(sample, dtype=bool)
    agrees = np.asarray(agrees, dtype=bool)
    if scores.shape != sample.shape or agrees.shape != (int(sample.sum()),):
        raise RoutingError(f"{scores.shape} scores, {sample.shape} sample flags, {agrees.shape} outcomes")
    first = first_share(int(sample.sum()), target_error, delta)
    thresholds = candidate_thresholds(scores, first)
    above = scores[None, :] >= thresholds[:, None]
    in_sample = above[:, sample]
    counts = (above.sum(axis=1), in_sample.sum(axis=1), (in_sample & ~agrees[None, :]).sum(axis=1))
    tests = p_values(*counts, target_error)
    failed = np.flatnonzero(tests > delta)
    passed = failed[0] if len(failed) else len(thresholds)
    rest = int((~sample).sum())
    plan = (target_error, delta, int(sample.sum()))
    if passed == 0:
        reason = _why_none(first, counts[1][0], counts[2][0], target_error, delta)
        return Routing(None, *plan, 0, 0, 0.0, 1.0, reason)
    last = passed - 1
    share = float((above[last] & ~sample).sum() / rest) if rest else 0.0
    accepted, errors = int(counts[1][last]), int(counts[2][last])
    return Routing(float(thresholds[last]), *plan, accepted, errors, share, float(tests[last]), "")


def _why_none(first: float, accepted: int, errors: int, target_error: float, delta: float) -> str:
    needed = fewest_items(target_error, delta)
    if accepted < needed:
        return (
            f"only {accepted} calibration items are among the machine's most confident {first:.0%}; an "
            f"error of at most {target_error:g} with confidence {1 - delta:g} needs at least {needed}"
        )
    return (
        f"even among the machine's most confident {first:.0%}, {errors} of {accepted} calibration items "
        f"disagree with people's decision: an error of at most {target_error:g} cannot be shown "
        f"with confidence {1 - delta:g}"
    )
