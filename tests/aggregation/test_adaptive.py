"""Adaptive redundancy (issue 29, item 2): which items stay open, and rounds over arriving labels."""

from __future__ import annotations

import numpy as np
import pytest

from aggregation.adaptive import AdaptiveError, AdaptivePolicy, fixed_rounds, rule_could_change, run_rounds
from aggregation.dawid_skene import DawidSkene
from aggregation.labels import LabelSet
from aggregation.responses import Responses
from aggregation.rules import AgreementRule
from aggregation.simulated_crowds import CrowdSpec, long_format, simulate_crowd

BINARY = LabelSet("binary", ("a", "b"))
PAPER = AgreementRule("labels", BINARY, frozenset({"a", "b"}), threshold=0.5)


def test_a_unanimous_item_is_settled_once_the_labels_left_cannot_overturn_it():
    counts = np.array([[4, 0], [3, 0], [2, 1]])
    left = np.array([1, 2, 2])
    # 4-0 +1 can end 4-1 (ρ 0.6, kept); 3-0 +2 can end 3-2 (ρ 0.4, rejected); 2-1 +2 can flip.
    assert rule_could_change(counts, PAPER, left).tolist() == [False, True, True]


def test_no_labels_left_means_nothing_can_change():
    assert not rule_could_change(np.array([[1, 1]]), PAPER, np.array([0])).any()


@pytest.mark.parametrize(
    "values",
    [{"min_workers": 0}, {"min_workers": 4, "max_workers": 3}, {"stop_posterior": 1.5}, {"workers": 3}],
)
def test_impossible_adaptive_settings_are_refused(values):
    with pytest.raises(AdaptiveError):
        AdaptivePolicy.from_mapping(values)


def test_settings_read_from_a_job_round_trip():
    policy = AdaptivePolicy(min_workers=3, max_workers=7, stop_posterior=0.9)
    assert AdaptivePolicy.from_mapping(policy.as_dict()) == policy


def crowd_rounds(stop: float):
    crowd = simulate_crowd(CrowdSpec(0.8, 5, 0.1, items=600, pool=16, seed=3))

    def respond(used):
        items, workers, labels = long_format(crowd, used)
        return Responses.from_codes(items, workers, labels, BINARY, require_overlap=False)

    available = np.full(len(crowd.truth), 5)
    return crowd, respond, run_rounds(available, respond, DawidSkene(), AdaptivePolicy(2, 5, stop))


def test_adaptive_asks_only_open_items_and_stays_between_min_and_max():
    _, _, replay = crowd_rounds(0.95)
    used = replay.labels_used
    assert used.min() >= 2 and used.max() <= 5
    assert 2 * len(used) < used.sum() < 5 * len(used)
    # Answers are taken in arrival order: no item skips one.
    assert (replay.used == fixed_rounds(np.full(len(used), 5), 5) & (np.arange(5) < used[:, None])).all()
    # Every item it stopped early on, the model was sure of.
    stopped = used < 5
    assert (replay.fitted.probabilities.max(axis=1)[stopped] >= 0.95).all()


def test_a_stricter_stop_buys_more_labels():
    assert crowd_rounds(0.99)[2].used.sum() > crowd_rounds(0.9)[2].used.sum()
