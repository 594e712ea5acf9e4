"""The machine routing's guarantee checked on labels collected elsewhere (`replay_labels
--machine-scores`): a lab replays its past crowd labels beside a machine's scores before paying for
either. Pure module: no Django.

A random calibration sample of the items is treated as the crowd's (its decisions calibrate the
machine and choose the threshold); among the other items, those the threshold accepts are compared
with the crowd's decision (the realised error the bound is about) and, where the truth is known,
with the truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aggregation.calibration import calibration_error
from aggregation.machines.calibrating import FOLDS, Calibration, calibrate
from aggregation.machines.routing import Routing, choose_threshold
from aggregation.streaming import LabelFileError
from annotation.machines.plans import seeded_sample

MACHINE_COLUMNS = ["item", "label", "score"]


def read_machine_scores(path: Path | str, labels: Sequence[str]) -> pd.DataFrame:
    """``item,label,score`` rows: the machine's label of each item and its score in [0, 1]."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as error:
        raise LabelFileError(f"{path}: {error}") from None
    if list(frame.columns) != MACHINE_COLUMNS:
        raise LabelFileError(
            f"the machine scores' header must be item,label,score, not {','.join(frame.columns)}"
        )
    if frame.empty or frame["item"].duplicated().any():
        raise LabelFileError(f"{path} needs one row per item, and at least one")
    scores = pd.to_numeric(frame["score"], errors="coerce")
    bad = scores.isna() | (scores < 0) | (scores > 1) | ~frame["label"].isin(list(labels))
    if bad.any():
        line = int(np.argmax(bad.to_numpy())) + 2
        raise LabelFileError(
            f"line {line}: needs a label among {list(labels)} and a score in [0, 1], "
            f"not {frame['label'].iloc[line - 2]!r}, {frame['score'].iloc[line - 2]!r}"
        )
    return frame.assign(score=scores.astype(np.float64))


def calibration_sample(n_items: int, size: int, seed: int) -> np.ndarray:
    """Which items (positions) go to the crowd to calibrate: a seeded uniform sample of ``size``."""
    if not 0 < size < n_items:
        raise LabelFileError(f"{size} calibration items must be more than none and fewer than {n_items}")
    return seeded_sample(n_items, size, seed)


@dataclass(frozen=True)
class RoutingCheck:
    routing: Routing
    calibration: Calibration
    accepted: int  # items outside the calibration sample accepted from the machine
    others: int  # items outside the calibration sample
    realised_error: float  # of the accepted, against the crowd's decision (nan when none)
    error_against_gold: float  # of the accepted with a known truth (nan when none)

    def describe(self) -> str:
        routing = self.routing
        threshold = "none" if routing.threshold is None else f"{routing.threshold:.4f}"
        line = (
            f"machine routing target_error={routing.target_error:g} confidence={1 - routing.delta:g} "
            f"calibration_items={routing.calibration_items} ECE={self.calibration.ece:.4f} "
            f"threshold={threshold} accepted={self.accepted} of {self.others} "
            f"realised_error={self.realised_error:.4f} gold_error={self.error_against_gold:.4f}"
        )
        return f"{line} ({routing.reason})" if routing.reason else line


def check_routing(
    decided: pd.Series,
    machine: pd.DataFrame,
    plan: tuple[float, float, int],
    *,
    seed: int = 0,
    gold: dict[str, str] | None = None,
) -> RoutingCheck:
    """Route ``machine``'s items (``plan``: target error, δ, calibration items) against the crowd's
    ``decided`` label of each item (item → label) and measure what the threshold accepts."""
    target_error, delta, size = plan
    missing = ~machine["item"].isin(decided.index)
    if missing.any():
        raise LabelFileError(
            f"item {machine['item'][missing].iloc[0]!r} has a machine score but no crowd label"
        )
    agrees = machine["label"].to_numpy() == decided.loc[machine["item"]].to_numpy()
    sample = calibration_sample(len(machine), size, seed)
    scores = machine["score"].to_numpy()
    routing = choose_threshold(scores, sample, agrees[sample], target_error, delta)
    accepted = ~sample & (scores >= (np.inf if routing.threshold is None else routing.threshold))
    truth = machine["item"].map(gold or {})
    judged = accepted & truth.notna().to_numpy()
    return RoutingCheck(
        routing,
        calibrate(scores[sample], agrees[sample], seed=seed),
        int(accepted.sum()),
        int((~sample).sum()),
        float(np.mean(~agrees[accepted])) if accepted.any() else float("nan"),
        float(np.mean(machine["label"][judged] != truth[judged])) if judged.any() else float("nan"),
    )


def posterior_calibration(table: pd.DataFrame, gold: dict[str, str]) -> tuple[int, float, float]:
    """How well a label model's posteriors (``confidence`` of its ``model_label``) match the truth on
    the gold items: (items judged, ECE as they are, ECE once calibrated, cross-fitted). The second
    figure is what a threshold on those posteriors can be trusted to; nan with too few gold items."""
    judged = table[table["item"].isin(list(gold))]
    right = (judged["model_label"] == judged["item"].map(gold)).to_numpy(dtype=np.float64)
    confidence = judged["confidence"].to_numpy(dtype=np.float64)
    if len(judged) < 2 * FOLDS:
        return len(judged), float("nan"), float("nan")
    return len(judged), calibration_error(confidence, right), calibrate(confidence, right).ece
