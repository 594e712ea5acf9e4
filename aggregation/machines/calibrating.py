"""A machine's scores as probabilities that it agrees with people's decisions. Pure module: no Django.

A score says how sure a machine is; the probability fitted here says how often, at that score, its
label was the one people decided (gold, adjudicated or crowd-decided items). The fit is isotonic
(monotone, no shape assumed; Zadrozny & Elkan, KDD 2002) through scikit-learn. Cross-fitting: the
calibration items are split into folds and each item's probability comes from a fit on the other
folds, so no item calibrates itself and the ECE reported is the one a new item would see.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.isotonic import IsotonicRegression

from aggregation.calibration import calibration_error
from aggregation.label_models import FloatArray

FOLDS = 5


class CalibrationError(ValueError):
    """Too few items, or scores and outcomes that do not match."""


@dataclass(frozen=True)
class Calibration:
    """The fit on every calibration item, and each item's cross-fitted probability with their ECE."""

    fit: IsotonicRegression
    cross_fitted: FloatArray
    ece: float

    def probability(self, scores: FloatArray) -> FloatArray:
        """The probability that the machine's label is the people's, at each of these scores."""
        return np.asarray(self.fit.predict(np.asarray(scores, dtype=np.float64)), dtype=np.float64)


def _isotonic(scores: FloatArray, agrees: FloatArray) -> IsotonicRegression:
    return IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, agrees)


def calibrate(scores: FloatArray, agrees: FloatArray, *, folds: int = FOLDS, seed: int = 0) -> Calibration:
    """Fit P(agree | score) on the calibration items (``agrees``: 1 where the machine's label is the
    people's decision, else 0), cross-fitted over ``folds`` random folds."""
    scores, agrees = np.asarray(scores, dtype=np.float64), np.asarray(agrees, dtype=np.float64)
    if scores.shape != agrees.shape or scores.ndim != 1:
        raise CalibrationError(f"{scores.shape} scores for {agrees.shape} outcomes")
    if len(scores) < 2 * folds:
        raise CalibrationError(f"{len(scores)} calibration items; cross-fitting needs at least {2 * folds}")
    fold = np.random.default_rng(seed).permutation(len(scores)) % folds
    cross_fitted = np.empty(len(scores))
    for k in range(folds):
        held = fold == k
        cross_fitted[held] = _isotonic(scores[~held], agrees[~held]).predict(scores[held])
    return Calibration(_isotonic(scores, agrees), cross_fitted, calibration_error(cross_fitted, agrees))
