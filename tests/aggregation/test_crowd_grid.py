"""The crowd grid's judgement (bench/crowd_grid.py): crowd-kit compared with ours item by item."""

from __future__ import annotations

import numpy as np

from aggregation.simulated_crowds import CrowdSpec
from bench.crowd_grid import _cached, _uncached, cell_goals

BALANCED = CrowdSpec(0.5, 3, 0.0)


def test_the_items_crowdkit_got_right_survive_the_cache():
    truth = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1])  # not a whole number of bytes
    decided = np.array([0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1])
    probabilities = np.eye(2)[decided]
    right, ece = _uncached(_cached(decided, probabilities, truth), len(truth))
    assert right.tolist() == (decided == truth).astype(float).tolist()
    assert ece == np.mean(decided != truth)  # all sure: wrong on every item it missed


def cell(ours: np.ndarray, theirs: np.ndarray) -> dict:
    everyone = [np.ones_like(ours)]
    right = {"dawid_skene": everyone, "mace": [ours], "majority_vote": [ours], "always_majority": everyone}
    return {"right": right, "crowdkit": {"crowdkit_mace": {0: (theirs, 0.0)}}}


def test_a_few_items_lost_where_the_two_disagree_on_few_is_a_miss_not_noise():
    # 900 of 1,000 right on both sides, crowd-kit right on 8 more: unpaired, 2 SE would be 0.027.
    theirs = np.r_[np.ones(908), np.zeros(92)]
    ours = np.r_[np.ones(900), np.zeros(100)]
    missed, noise = cell_goals(BALANCED, cell(ours, theirs))
    assert missed == ["mace < crowd-kit by 0.008, 2 SE 0.006"] and noise == []


def test_a_small_net_gap_over_items_won_and_lost_alike_is_within_noise():
    theirs = np.r_[np.ones(900), np.zeros(100)]
    ours = theirs.copy()
    ours[:12], ours[900:910] = 0, 1  # 12 items lost, 10 won
    missed, noise = cell_goals(BALANCED, cell(ours, theirs))
    assert missed == [] and noise == ["mace < crowd-kit by 0.002, 2 SE 0.009"]
