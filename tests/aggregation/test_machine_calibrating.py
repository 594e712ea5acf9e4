"""A machine's scores as probabilities, cross-fitted (issue 46)."""

from __future__ import annotations

import numpy as np
import pytest

from aggregation.calibration import calibration_error
from aggregation.machines.calibrating import CalibrationError, calibrate


def test_an_overconfident_machine_is_calibrated_by_the_fit() -> None:
    rng = np.random.default_rng(7)
    chance = rng.uniform(0.3, 1.0, 5000)
    agrees = (rng.random(5000) < chance).astype(float)
    overconfident = chance**0.25
    fitted = calibrate(overconfident, agrees)
    assert calibration_error(overconfident, agrees) > 0.1
    assert fitted.ece < 0.03
    assert fitted.probability(np.array([0.9**0.25]))[0] == pytest.approx(0.9, abs=0.05)


def test_no_item_calibrates_itself() -> None:
    rng = np.random.default_rng(8)
    scores = rng.random(200)
    agrees = (rng.random(200) < scores).astype(float)
    flipped = agrees.copy()
    flipped[17] = 1 - flipped[17]
    before, after = calibrate(scores, agrees).cross_fitted, calibrate(scores, flipped).cross_fitted
    assert before[17] == after[17]
    assert not np.array_equal(before, after)  # the flip does move the items it calibrates


def test_too_few_items_to_cross_fit_is_a_clear_error() -> None:
    with pytest.raises(CalibrationError, match="at least 10"):
        calibrate(np.linspace(0, 1, 9), np.ones(9))
