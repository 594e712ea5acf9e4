"""How many workers label each item: fixed (``workers_per_item``) or adaptive, as job parameters.

``redundancy: adaptive`` with ``min_workers``, ``max_workers`` and ``stop_posterior``: every item first
gets ``min_workers`` labels; afterwards only the items whose decision is still open get another
assignment, in new HITs, up to ``max_workers`` (aggregation.adaptive decides which are open). Pure
module: no Django, so the job forms, the work layer and aggregation all read the same settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

FIXED, ADAPTIVE = "fixed", "adaptive"
REDUNDANCIES = (FIXED, ADAPTIVE)
REDUNDANCY_PARAMS = frozenset({"redundancy", "min_workers", "max_workers", "stop_posterior"})


class AdaptiveError(ValueError):
    """An adaptive policy with impossible numbers (max below min, a posterior outside (0, 1] …)."""


@dataclass(frozen=True)
class AdaptivePolicy:
    """``redundancy: adaptive`` with its three numbers, as recorded on a job."""

    min_workers: int = 2
    max_workers: int = 5
    stop_posterior: float = 0.95

    def __post_init__(self) -> None:
        if not all(
            isinstance(n, int) and not isinstance(n, bool) for n in (self.min_workers, self.max_workers)
        ):
            raise AdaptiveError("min_workers and max_workers are whole numbers")
        if self.min_workers < 1:
            raise AdaptiveError("min_workers must be at least 1")
        if self.max_workers < self.min_workers:
            raise AdaptiveError(f"max_workers ({self.max_workers}) is below min_workers ({self.min_workers})")
        if not isinstance(self.stop_posterior, int | float) or not 0.0 < self.stop_posterior <= 1.0:
            raise AdaptiveError("stop_posterior lies in (0, 1]")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> AdaptivePolicy:
        """A policy from a job's settings; unknown names are refused, not ignored."""
        known = {"min_workers", "max_workers", "stop_posterior"}
        unknown = set(values) - known - {"redundancy"}
        if unknown:
            raise AdaptiveError(f"unknown adaptive setting(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**{name: values[name] for name in known if values.get(name) is not None})

    def as_dict(self) -> dict[str, Any]:
        return {"redundancy": ADAPTIVE, **asdict(self)}


def adaptive_policy(params: Mapping[str, Any]) -> AdaptivePolicy | None:
    """The job's adaptive policy, or None for fixed redundancy (the default)."""
    redundancy = params.get("redundancy", FIXED)
    if redundancy not in REDUNDANCIES:
        raise AdaptiveError(f"redundancy must be one of {list(REDUNDANCIES)}, not {redundancy!r}")
    if redundancy == FIXED:
        return None
    return AdaptivePolicy.from_mapping({name: params[name] for name in REDUNDANCY_PARAMS if name in params})
