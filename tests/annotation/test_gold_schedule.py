"""The adaptive gold schedule: frequent at first, thinner as the gold posterior clears the bar."""

from __future__ import annotations

import random

import pytest

from annotation.quality.gold_schedule import (
    GoldPolicyError,
    QualityPolicy,
    beta_interval,
    gold_count,
    gold_places,
    gold_rate,
    thinned_rate,
)

ADAPTIVE = QualityPolicy(gold_schedule="adaptive", quality_bar=0.6)


def test_thinning_follows_mephisto_one_in_ten_then_five_percent_by_100_and_one_by_1000() -> None:
    assert thinned_rate(0) == pytest.approx(0.10)
    assert thinned_rate(100) == pytest.approx(0.05)
    assert thinned_rate(1000) == pytest.approx(0.01)
    assert thinned_rate(50_000) == pytest.approx(0.01)
    assert 0.05 < thinned_rate(50) < 0.10


def test_a_worker_with_no_gold_yet_gets_the_starting_rate_whatever_they_did() -> None:
    assert gold_rate(ADAPTIVE, 0, 0, 500) == pytest.approx(0.10)


def test_gold_thins_once_the_posterior_is_surely_above_the_bar() -> None:
    assert gold_rate(ADAPTIVE, 20, 20, 500) == pytest.approx(thinned_rate(500))
    assert gold_rate(ADAPTIVE, 20, 20, 500) < 0.05


def test_gold_grows_again_when_the_worker_starts_missing_it() -> None:
    proven = gold_rate(ADAPTIVE, 20, 20, 500)
    slipping = gold_rate(ADAPTIVE, 20, 30, 600)
    assert slipping == pytest.approx(0.10)
    assert slipping > proven


def test_the_interval_is_the_central_mass_of_the_beta_posterior() -> None:
    low, high = beta_interval(0, 0, 0.9)  # the uniform prior
    assert (low, high) == (pytest.approx(0.05), pytest.approx(0.95))
    low, high = beta_interval(90, 10, 0.9)
    assert low < 0.9 < high and high - low < 0.12


def test_gold_count_keeps_the_long_run_share_even_below_one_item_per_hit() -> None:
    rng = random.Random(1)
    counts = [gold_count(0.02, 9, rng) for _ in range(20_000)]
    share = sum(counts) / (sum(counts) + 9 * len(counts))
    assert share == pytest.approx(0.02, abs=0.002)
    assert set(counts) == {0, 1}


def test_gold_places_are_distinct_positions_among_all_the_items() -> None:
    places = gold_places(9, 3, random.Random(4))
    assert len(set(places)) == 3 and all(0 <= place < 12 for place in places)


@pytest.mark.parametrize(
    "params",
    [
        {"gold_schedule": "sometimes"},
        {"quality_bar": 1.5},
        {"quality_confidence": 0},
        {"stop_workers": "maybe"},
    ],
)
def test_impossible_quality_parameters_are_refused_with_their_name(params: dict[str, object]) -> None:
    with pytest.raises(GoldPolicyError, match=next(iter(params))):
        QualityPolicy.from_params(params)


def test_parameters_given_as_text_are_read_as_their_values() -> None:
    policy = QualityPolicy.from_params(
        {"gold_schedule": "adaptive", "quality_bar": "0.7", "stop_workers": "true"}
    )
    assert (policy.adaptive, policy.quality_bar, policy.stop_workers, policy.live) == (True, 0.7, True, True)
    assert not QualityPolicy.from_params({}).live
