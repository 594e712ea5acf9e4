"""A job's `machine` parameter: which machine labels beside the crowd, at what error bound. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
