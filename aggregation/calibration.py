"""How far a label model's posteriors are from the accuracy they promise. Pure module: no Django.

Adaptive redundancy stops asking for labels once an item's posterior passes a threshold, so a model
whose 0.95 is right only 80% of the time stops too early. Expected calibration error (Naeini et al.,
AAAI 2015): items binned by their top posterior; the mean over bins, weighted by bin size, of
|accuracy − mean posterior|.
"""

from __future__ import annotations

import numpy as np

from aggregation.label_models import FloatArray, IntArray
from aggregation.labels import NO_MAJORITY


def expected_calibration_error(
    probabilities: FloatArray, labels: IntArray, truth: IntArray, bins: int = 10
) -> float:
    """ECE of the decided ``labels`` with confidence = each item's top posterior; an undecided item
    (NO_MAJORITY) counts as half right, as a coin toss between its tied labels would be."""
    confidence = probabilities.max(axis=1)
    correct = np.where(labels == NO_MAJORITY, 0.5, (labels == truth).astype(np.float64))
    return calibration_error(confidence, correct, bins)


def calibration_error(confidence: FloatArray, correct: FloatArray, bins: int = 10) -> float:
    """ECE of any confidence in [0, 1] against how often it was right (``correct``: 1, 0, or a share)."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, bins - 1)
    sizes = np.bincount(which, minlength=bins)
    gap = np.abs(
        np.bincount(which, weights=correct, minlength=bins)
        - np.bincount(which, weights=confidence, minlength=bins)
    )
    return float(gap.sum() / max(sizes.sum(), 1))


def accuracy(labels: IntArray, truth: IntArray) -> float:
    """Share right; an undecided item counts as half right (its expected accuracy under a fair coin)."""
    return float(np.mean(np.where(labels == NO_MAJORITY, 0.5, labels == truth)))
