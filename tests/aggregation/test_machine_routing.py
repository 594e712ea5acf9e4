"""Routing with a guarantee (issue 46): the machine's threshold bounds the error of what it accepts."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from aggregation.machines.routing import (
    RoutingError,
    candidate_thresholds,
    choose_threshold,
    first_share,
    p_values,
)


def sample_of(n_items: int, size: int, seed: int) -> np.ndarray:
    chosen = np.zeros(n_items, dtype=bool)
    chosen[np.random.default_rng(seed).permutation(n_items)[:size]] = True
    return chosen


def test_the_p_value_is_the_hypergeometric_tail_worked_by_hand() -> None:
    # 10 accepted items, 5 in the sample, none of those wrong; ε = 0.2 of the other 5 is 1 item, so the
    # hypothesis "more than ε wrong" needs at least 2 wrong in all: P(none of 2 in a draw of 5 of 10).
    tested = p_values(np.array([10]), np.array([5]), np.array([0]), 0.2)
    assert tested[0] == pytest.approx(comb(8, 5) / comb(10, 5))


def test_a_hypothesis_no_count_can_make_true_is_rejected() -> None:
    # 3 accepted, all 3 in the sample: no other item can be wrong, whatever ε.
    assert p_values(np.array([3]), np.array([3]), np.array([1]), 0.05)[0] == 0.0


def test_thresholds_run_from_most_to_least_confident_starting_at_the_first_share() -> None:
    scores = np.linspace(0, 1, 1001)
    thresholds = candidate_thresholds(scores, 0.25)
    assert np.all(np.diff(thresholds) < 0)
    assert (scores >= thresholds[0]).mean() == pytest.approx(0.25, abs=0.002)
    assert thresholds[-1] == scores.min()


def test_the_first_share_holds_four_times_the_fewest_items_a_bound_needs() -> None:
    # ε = 0.05 at δ = 0.05 needs 59 items with no error; four times that of 1,000 is 23.6%, so 24%.
    assert first_share(1000, 0.05, 0.05) == pytest.approx(0.24)
    assert first_share(100, 0.05, 0.05) == 1.0


def test_a_machine_that_always_agrees_has_every_other_item_accepted() -> None:
    scores = np.random.default_rng(1).random(3000)
    sample = sample_of(3000, 600, 1)
    routing = choose_threshold(scores, sample, np.ones(600, dtype=bool), 0.05, 0.05)
    assert routing.threshold == scores.min()
    assert routing.share_accepted == 1.0 and routing.errors == 0 and routing.reason == ""


def test_a_machine_at_chance_has_nothing_accepted_and_says_why() -> None:
    rng = np.random.default_rng(2)
    scores, sample = rng.random(3000), sample_of(3000, 600, 2)
    routing = choose_threshold(scores, sample, rng.random(600) < 0.5, 0.10, 0.05)
    assert routing.threshold is None and routing.share_accepted == 0.0
    assert "cannot be shown" in routing.reason and "0.9" in routing.reason


def test_too_small_a_sample_says_how_many_items_a_bound_needs() -> None:
    scores = np.random.default_rng(3).random(1000)
    routing = choose_threshold(scores, sample_of(1000, 40, 3), np.ones(40, dtype=bool), 0.05, 0.05)
    assert routing.threshold is None
    assert "only 40 calibration items are among the machine's most confident 100%" in routing.reason
    assert "needs at least 59" in routing.reason


@pytest.mark.parametrize(("target", "delta"), [(0.0, 0.05), (0.1, 1.0), (1.5, 0.05)])
def test_a_target_or_confidence_outside_zero_one_is_refused(target: float, delta: float) -> None:
    with pytest.raises(RoutingError, match=r"must both be in \(0, 1\)"):
        choose_threshold(np.ones(100), sample_of(100, 20, 0), np.ones(20, dtype=bool), target, delta)


def test_outcomes_that_do_not_match_the_sample_are_refused() -> None:
    with pytest.raises(RoutingError, match="outcomes"):
        choose_threshold(np.ones(100), sample_of(100, 20, 0), np.ones(19, dtype=bool), 0.1, 0.05)


def test_the_error_of_accepted_items_stays_within_the_bound_over_many_samples() -> None:
    """One job whose error climbs steeply below a score of 0.5; over 300 calibration samples the
    realised error of the accepted other items is above ε in at most δ of them (and a little noise)."""
    rng = np.random.default_rng(46)
    scores = rng.random(4000)
    agrees = rng.random(4000) > np.where(scores > 0.5, 0.01, 0.4)
    target, delta, violations, accepting = 0.05, 0.05, 0, 0
    for seed in range(300):
        sample = sample_of(4000, 800, seed)
        routing = choose_threshold(scores, sample, agrees[sample], target, delta)
        if routing.threshold is None:
            continue
        accepting += 1
        accepted = ~sample & (scores >= routing.threshold)
        violations += np.mean(~agrees[accepted]) > target
    assert accepting >= 150
    assert violations / 300 <= delta + 0.02
