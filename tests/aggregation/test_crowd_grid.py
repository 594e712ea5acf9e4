"""The crowd grid's judgement (bench/crowd_grid.py): crowd-kit compared with ours item by item."""

from __future__ import annotations

import numpy as np
import pytest

from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import MajorityVote
from aggregation.mace import MACE
from aggregation.responses import Responses
from aggregation.simulated_crowds import CrowdSpec
from bench.crowd_grid import (
    BINARY,
    SEEDS,
    _cached,
    _uncached,
    cell_goals,
    cell_line,
    score_cell,
    seeds_option,
)

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


def dawid_skene_as_crowdkit(items, workers, labels):
    fitted = DawidSkene().fit(Responses.from_codes(items, workers, labels, BINARY))
    return fitted.labels, fitted.probabilities


def test_held_out_seeds_are_compared_with_crowdkit_on_the_same_crowds():
    spec = CrowdSpec(0.8, 3, 0.15)
    models = [MajorityVote(), DawidSkene(), MACE()]
    cell = score_cell(spec, models, {"dawid_skene": dawid_skene_as_crowdkit}, {}, True, range(12, 14))
    theirs = cell["crowdkit"]["crowdkit_dawid_skene"]
    assert sorted(theirs) == [0, 1]  # by position: seeds 12 and 13
    for position, (right, _) in theirs.items():
        assert right.tolist() == cell["right"]["dawid_skene"][position].tolist()
    line, _ = cell_line(spec, cell)
    assert "crowdkit_dawid_skene=" in line and "dawid_skene < crowd-kit" not in line


def test_the_grid_judges_its_own_seeds_unless_told_others():
    assert seeds_option([]) == SEEDS == range(10)
    assert seeds_option(["--fit-crowdkit", "--seeds=10-19"]) == range(10, 20)
    with pytest.raises(SystemExit):
        seeds_option(["--seeds=19-10"])
