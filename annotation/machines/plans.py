"""A job's `machine` parameter: which machine labels beside the crowd, at what error bound, and which of
its items the crowd labels first to calibrate it. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

FIELDS = {"annotator", "target_error", "confidence", "calibration_items"}


class MachinePlanError(ValueError):
    """A `machine` parameter that names no annotator, lacks a field or sets one out of range."""


@dataclass(frozen=True)
class MachinePlan:
    annotator: str  # a machine's name: its latest version when the routing is chosen
    target_error: float  # ε
    confidence: float  # 1 − δ: the chance the bound holds
    calibration_items: int  # sent to the crowd first, to choose the threshold

    @property
    def delta(self) -> float:
        return round(1 - self.confidence, 12)

    def describe(self) -> str:
        return (
            f"machine {self.annotator} beside the crowd: its labels accepted where their error against the "
            f"crowd's decision is at most {self.target_error:g} with confidence {self.confidence:g}, "
            f"the threshold chosen on {self.calibration_items} calibration items the crowd labels first"
        )


def machine_plan(params: Mapping[str, Any]) -> MachinePlan | None:
    """The job's plan, or None without a `machine` parameter."""
    spec = params.get("machine")
    if spec is None:
        return None
    if not isinstance(spec, Mapping) or set(spec) != FIELDS:
        raise MachinePlanError(f"machine needs exactly {sorted(FIELDS)}, not {spec!r}")
    try:
        plan = MachinePlan(
            str(spec["annotator"]),
            float(spec["target_error"]),
            float(spec["confidence"]),
            int(spec["calibration_items"]),
        )
    except (TypeError, ValueError):
        raise MachinePlanError(f"machine's numbers are not numbers: {spec!r}") from None
    if not (0 < plan.target_error < 1 and 0.5 <= plan.confidence < 1 and plan.calibration_items > 0):
        raise MachinePlanError(
            "machine needs 0 < target_error < 1, confidence in [0.5, 1) (the chance the bound holds) "
            "and calibration_items > 0"
        )
    return plan


def seeded_sample(n_items: int, size: int, seed: int) -> np.ndarray:
    """Which of ``n_items`` positions are in a seeded uniform sample of ``size`` (a boolean mask)."""
    import numpy as np  # here, not above: the job services import this module, and every command them

    chosen = np.zeros(n_items, dtype=bool)
    chosen[np.random.default_rng(seed).permutation(n_items)[:size]] = True
    return chosen


def calibration_ids(item_ids: Sequence[int], plan: MachinePlan, seed: int) -> list[int]:
    """The calibration sample among a job's items (their ids, in order), seeded by the job: the same
    sample whenever it is asked for. Refused unless some items are left for the machine."""
    if not 0 < plan.calibration_items < len(item_ids):
        raise MachinePlanError(
            f"calibration_items ({plan.calibration_items}) must be fewer than the job's {len(item_ids)} items"
        )
    chosen = seeded_sample(len(item_ids), plan.calibration_items, seed)
    return [pk for pk, picked in zip(item_ids, chosen.tolist(), strict=True) if picked]
