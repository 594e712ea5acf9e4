"""Adaptive redundancy (issue 29, item 2): which items stay open, and rounds over arriving labels."""

from __future__ import annotations

import numpy as np
import pytest

from aggregation.adaptive import (
    AdaptiveError,
    AdaptivePolicy,
    fixed_rounds,
    model_could_change,
    open_items,
    rule_could_change,
    run_rounds,
)
from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import Aggregate
from aggregation.labels import LabelSet
from aggregation.posterior_decisions import KnownAnswers
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
    # Every item it stopped early on, the model was sure of, or no labels left could change its label.
    stopped = used < 5
    sure = replay.fitted.probabilities.max(axis=1) >= 0.95
    settled = ~model_could_change(replay.fitted, 5 - used)
    assert (sure | settled)[stopped].all()
    assert (~sure & stopped).any()  # the second test saves labels the first alone would buy


def test_a_stricter_stop_buys_more_labels():
    assert crowd_rounds(0.99)[2].used.sum() > crowd_rounds(0.9)[2].used.sum()


def fitted_two_items(posterior_a: list[float]) -> Aggregate:
    """Two binary items with the given posteriors of "a"; every worker right 80% of the time."""
    probabilities = np.array([[p, 1 - p] for p in posterior_a])
    confusion = np.array([[[0.8, 0.2], [0.2, 0.8]]] * 3)
    return Aggregate(
        model="test",
        items=np.arange(len(posterior_a)),
        workers=np.arange(3),
        label_set=BINARY,
        labels=np.zeros(len(posterior_a), dtype=np.intp),
        probabilities=probabilities,
        worker_reliability=np.full(3, 0.8),
        worker_confusion=confusion,
    )


def test_the_model_label_can_change_only_where_the_labels_left_can_outweigh_its_margin():
    # One label moves the log odds by log 4 ≈ 1.39: odds 3 (0.75) can flip with one, 9 (0.9) cannot,
    # 9 can with two, and 0.99 (odds 99, log 4.6) cannot even with three.
    fitted = fitted_two_items([0.75, 0.9, 0.9, 0.99])
    left = np.array([1, 1, 2, 3])
    assert model_could_change(fitted, left).tolist() == [True, False, True, False]
    assert not model_could_change(fitted, np.zeros(4, dtype=np.intp)).any()


def test_an_unsure_item_the_labels_left_cannot_overturn_gets_no_more():
    fitted = fitted_two_items([0.9, 0.9])
    counts = np.array([[4, 0], [2, 0]])  # one label left for the first, three for the second
    asking = open_items(AdaptivePolicy(2, 5, 0.95), fitted, counts, None)
    assert asking.tolist() == [False, True]


def test_with_known_answers_that_say_the_model_is_often_wrong_stop_posterior_buys_more_labels():
    crowd, respond, raw = crowd_rounds(0.95)
    # People "know" an answer on 60 items: the truth on half, the other label on the rest, so the
    # calibrated posteriors sit near one half and few items may stop early.
    known = {i: BINARY.labels[(crowd.truth[i] + i % 2) % 2] for i in range(0, 600, 10)}
    available = np.full(len(crowd.truth), 5)
    policy = AdaptivePolicy(2, 5, 0.95)
    doubted = run_rounds(available, respond, DawidSkene(), policy, known=KnownAnswers(known))
    assert doubted.used.sum() > raw.used.sum()
    # No item stopped for being sure: only where the labels left could not overturn its label.
    for replay, any_sure in ((doubted, False), (raw, True)):
        used = replay.labels_used
        stopped, settled = used < 5, ~model_could_change(replay.fitted, 5 - used)
        assert (stopped & ~settled).any() == any_sure
