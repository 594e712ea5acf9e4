"""The calibration bench on a crowd shaped like the real one (bench/calibration_shaped.py, issue 46):
resampled from PERSPECTRUM's per-cluster vote counts, Dawid–Skene's posteriors are overconfident where
on the simulated crowd they are not, and the cross-fitted isotonic calibration mends them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aggregation.dawid_skene import DawidSkene
from bench.calibration_shaped import (
    MIN_VOTES,
    PRIOR_VOTES,
    scores,
    shaped_crowd,
    shaped_items,
    simulated_crowd,
)
from corpus.perspectrum import read_release


def test_the_clusters_kept_are_those_whose_label_is_their_votes_plurality(perspectrum_dir: Path):
    counts, truth = shaped_items(read_release(perspectrum_dir).claims)
    assert len(truth) == 4275  # of 5,095: 2-vote clusters and reversed flipped copies left out
    assert counts.sum(axis=1).min() >= MIN_VOTES
    assert (counts.argmax(axis=1) == truth).all()
    assert set(truth.tolist()) == {0, 1}  # SUPPORT, UNDERMINE: the release decides no cluster NOT_VALID


def test_workers_answer_from_the_items_own_vote_shares():
    counts = np.array([[3.0, 0.0, 0.0], [2.0, 1.0, 0.0], [0.0, 1.0, 2.0]]).repeat(2000, axis=0)
    truth = counts.argmax(axis=1)
    responses, ordered = shaped_crowd(counts, truth, seed=0)
    labels = responses.counts().reshape(3, 2000, 3).sum(axis=1) / (5 * 2000)
    assert np.allclose(labels, counts[::2000] / 3, atol=0.01)
    assert (ordered == truth[responses.items.astype(np.intp)]).all()
    each = np.sort(responses.worker_index.reshape(-1, 5), axis=1)  # rows are in item order, 5 an item
    assert (np.diff(each, axis=1) > 0).all()  # five distinct workers on every item


def test_on_the_shaped_crowd_dawid_skene_is_overconfident_and_calibration_mends_it(perspectrum_dir: Path):
    counts, truth = shaped_items(read_release(perspectrum_dir).claims)
    shaped = scores(DawidSkene(), shaped_crowd(counts, truth, seed=0, prior=PRIOR_VOTES), seed=0)
    simulated = scores(DawidSkene(), simulated_crowd(len(truth), seed=0), seed=0)
    assert simulated["ece"] < 0.02
    assert shaped["ece"] > simulated["ece"] + 0.02
    assert shaped["sure_posterior"] - shaped["sure_accuracy"] > 0.01  # its 0.95s are not right 95%+
    assert shaped["calibrated"] < shaped["ece"] / 3
