"""The posteriors the decisions read: calibrated where people's answers allow it, else as they are.

``stop_posterior`` (adaptive redundancy), ``min_posterior`` (the model deciding) and the bulk
acceptance of the model's labels each compare a label model's posterior with a threshold. On a crowd
shaped like the real one those posteriors are overconfident (bench/calibration_shaped.py: Dawid–Skene's
ECE 0.055, its posteriors of 0.95 or more right 97.1% of the time; the issue reports 0.20 for stance on
real crowd labels not shipped here), so a threshold on them promises more than it keeps. Where enough
items have an answer people know (gold items, and items an expert decided), the posteriors are
calibrated on them as a machine's scores are (aggregation.machines.calibrating: isotonic,
cross-fitted), and the decisions read the calibrated
probability that the model's label is right. The job's own items of known answer are used when there
are enough; else those of every job of its task type; else the posteriors are read as they are, and
the job's page says so. A calibration item of the job gets its cross-fitted probability: no item
calibrates itself. Pure module: no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from aggregation.label_models import Aggregate, FloatArray

if TYPE_CHECKING:
    from aggregation.machines.calibrating import Calibration

ENOUGH = 10  # cross-fitting needs two items in each of its five folds (aggregation.machines.calibrating)
THIS_JOB, TASK_TYPE, AS_THEY_ARE = "this job", "task type", "as they are"


@dataclass(frozen=True)
class KnownAnswers:
    """People's answers where they are known: the job's own (item id → label on the rule's labels), and
    how the label model did on the other jobs of its task type (their posteriors and whether right)."""

    own: Mapping[int, str]
    pooled_posteriors: FloatArray = field(default_factory=lambda: np.zeros(0))
    pooled_right: FloatArray = field(default_factory=lambda: np.zeros(0))
    task_type: str = ""  # its name, as a page says it

    def for_fit(self, fitted: Aggregate) -> DecisionPosteriors:
        """The calibration of this fit's posteriors (its labels named on its own label set)."""
        names = np.asarray(fitted.label_set.labels, dtype=object)[fitted.labels]
        return self.posteriors(fitted.items, names, fitted.probabilities.max(axis=1))

    def posteriors(
        self, items: npt.NDArray[Any], labels: npt.NDArray[Any], raw: FloatArray
    ) -> DecisionPosteriors:
        """The calibration the decisions use, fitted on the label model's ``labels`` (names) and ``raw``
        posteriors of the job's ``items`` where their answer is known."""
        # Imported here: scikit-learn and SciPy, which a worker must not load when it starts.
        from aggregation.machines.calibrating import calibrate

        raw = np.asarray(raw, dtype=np.float64)
        known = _positions_of(items, self.own)
        ids = [int(item) for item in np.asarray(items)[known]]
        right = np.array(
            [labels[i] == self.own[item] for i, item in zip(known, ids, strict=True)], dtype=float
        )
        pooled = len(known) < ENOUGH
        if len(known) + (len(self.pooled_right) if pooled else 0) < ENOUGH:
            return DecisionPosteriors(
                AS_THEY_ARE, len(known) + len(self.pooled_right), None, {}, self.task_type
            )
        scores, agrees = raw[known], right
        if pooled:  # the job's items come first
            scores = np.concatenate([scores, self.pooled_posteriors])
            agrees = np.concatenate([agrees, self.pooled_right])
        calibration = calibrate(scores, agrees)
        own = dict(zip(ids, calibration.cross_fitted[: len(ids)].tolist(), strict=True))
        source = TASK_TYPE if pooled else THIS_JOB
        return DecisionPosteriors(source, len(scores), calibration, own, self.task_type)


@dataclass(frozen=True)
class DecisionPosteriors:
    """Where the calibration comes from, on how many items, the fit, and the cross-fitted probability
    of each of the job's own calibration items."""

    source: str  # THIS_JOB, TASK_TYPE or AS_THEY_ARE (too few items of known answer)
    items: int
    calibration: Calibration | None
    own: Mapping[int, float]
    task_type: str = ""

    def confidence(self, items: npt.NDArray[Any], raw: FloatArray) -> FloatArray:
        """What the decisions compare with their thresholds, per item: the calibrated probability that
        the model's label is right (cross-fitted on a calibration item), or the raw posterior."""
        raw = np.asarray(raw, dtype=np.float64)
        if self.calibration is None:
            return raw
        found = self.calibration.probability(raw)
        for position in _positions_of(items, self.own).tolist():
            found[position] = self.own[int(items[position])]
        return found

    def of(self, fitted: Aggregate) -> FloatArray:
        """What the decisions compare with their thresholds, for each item of this fit."""
        return self.confidence(fitted.items, fitted.probabilities.max(axis=1))

    def sentence(self) -> str:
        """What the job's page says the decisions read."""
        reads = (
            "The thresholds on the label model's posterior (when to stop asking for labels, the least "
            "posterior to keep an item, accepting its labels in bulk) read"
        )
        if self.calibration is None:
            return (
                f"{reads} the posteriors as they are: {self.items} items whose answer people know "
                f"(gold or adjudicated, in this job and the other {self.task_type} jobs), and at least "
                f"{ENOUGH} are needed to calibrate them"
            )
        where = "this job's" if self.source == THIS_JOB else f"the {self.task_type} jobs'"
        return (
            f"{reads} calibrated posteriors: isotonic, cross-fitted on {where} {self.items} items whose "
            f"answer people know (ECE once calibrated {self.calibration.ece:.3f})"
        )


def _positions_of(items: npt.NDArray[Any], wanted: Mapping[int, object]) -> npt.NDArray[np.intp]:
    """The positions of ``items`` (item ids) that are keys of ``wanted``."""
    if not wanted or len(items) == 0:
        return np.zeros(0, dtype=np.intp)
    ids = np.asarray(items, dtype=np.int64)
    return np.flatnonzero(np.isin(ids, np.fromiter(wanted, dtype=np.int64, count=len(wanted))))
