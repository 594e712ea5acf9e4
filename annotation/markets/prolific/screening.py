"""Who may take a Prolific study: a job's `prolific_screening` parameter, checked before publishing. Pure.

Prolific's `filters` (docs.prolific.com/api-reference/filters): a select filter names choices
(`{"filter_id": ..., "selected_values": [...]}`), a range filter bounds a number
(`{"filter_id": ..., "selected_range": {"lower": ..., "upper": ...}}`). Choice ids are Prolific's
own (from its filter list, e.g. `GET /api/v1/filters/`), never display order. The parameter reads:

    {"languages": ["19"], "countries": ["1", "2"], "approval_rate": {"lower": 95},
     "previous_submissions": {"lower": 100}, "devices": ["desktop", "tablet"],
     "naivety_distribution_rate": 0.5, "maximum_allowed_time": 60}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotation.market_interface.errors import MarketRejectedError

# Our names for the filters a lab sets most, and Prolific's filter ids for them.
SELECT_FILTERS = {"languages": "fluent-languages", "countries": "current-country-of-residence"}
RANGE_FILTERS = {
    "approval_rate": ("approval_rate", 0, 100),
    "previous_submissions": ("approval_numbers", 0, None),
}
DEVICES = frozenset({"desktop", "tablet", "mobile"})
KNOWN = frozenset(
    {*SELECT_FILTERS, *RANGE_FILTERS, "devices", "naivety_distribution_rate", "maximum_allowed_time"}
)


class ScreeningError(MarketRejectedError):
    """A screening Prolific would refuse, or one that does not say what the lab meant; nothing was sent."""


@dataclass(frozen=True)
class Screening:
    filters: tuple[dict[str, Any], ...] = ()
    devices: tuple[str, ...] = ("desktop",)
    naivety_distribution_rate: float | None = None
    maximum_allowed_time: int | None = None

    def as_request(self) -> dict[str, Any]:
        body: dict[str, Any] = {"device_compatibility": list(self.devices)}
        if self.naivety_distribution_rate is not None:
            body["naivety_distribution_rate"] = self.naivety_distribution_rate
        if self.maximum_allowed_time is not None:
            body["maximum_allowed_time"] = self.maximum_allowed_time
        return body


def screening(given: Mapping[str, Any] | None, *, minutes: int) -> Screening:
    """The job's screening, validated: raises ScreeningError naming the first part Prolific would refuse."""
    given = dict(given or {})
    unknown = set(given) - KNOWN
    if unknown:
        raise ScreeningError(f"prolific_screening has no {sorted(unknown)}; known: {sorted(KNOWN)}")
    filters = [_select(name, given[name]) for name in SELECT_FILTERS if given.get(name)]
    filters += [_range(name, given[name]) for name in RANGE_FILTERS if given.get(name)]
    return Screening(
        filters=tuple(filters),
        devices=_devices(given.get("devices", ["desktop"])),
        naivety_distribution_rate=_rate(given.get("naivety_distribution_rate")),
        maximum_allowed_time=_max_time(given.get("maximum_allowed_time"), minutes),
    )


def _select(name: str, values: Any) -> dict[str, Any]:
    if isinstance(values, str) or not all(isinstance(v, str | int) and str(v).isdigit() for v in values):
        raise ScreeningError(f"{name} takes a list of Prolific choice ids (digits, as in its filter list)")
    return {"filter_id": SELECT_FILTERS[name], "selected_values": [str(v) for v in values]}


def _range(name: str, bounds: Any) -> dict[str, Any]:
    filter_id, least, most = RANGE_FILTERS[name]
    if not isinstance(bounds, Mapping) or not set(bounds) <= {"lower", "upper"} or not bounds:
        raise ScreeningError(f"{name} takes {{'lower': n, 'upper': n}} (either may be left out)")
    chosen: dict[str, int] = {}
    for side, value in bounds.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScreeningError(f"{name} {side} must be a whole number, got {value!r}")
        if value < least or (most is not None and value > most):
            raise ScreeningError(f"{name} {side} must be within {least}..{most or 'any'}, got {value}")
        chosen[side] = value
    if "lower" in chosen and "upper" in chosen and chosen["lower"] > chosen["upper"]:
        raise ScreeningError(f"{name}: lower {chosen['lower']} is above upper {chosen['upper']}")
    return {"filter_id": filter_id, "selected_range": chosen}


def _devices(devices: Any) -> tuple[str, ...]:
    chosen = tuple(devices) if not isinstance(devices, str) else ()
    if not chosen or not set(chosen) <= DEVICES:
        raise ScreeningError(f"devices must be some of {sorted(DEVICES)}, got {devices!r}")
    return chosen


def _rate(rate: Any) -> float | None:
    if rate is None:
        return None
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
        raise ScreeningError(f"naivety_distribution_rate must be between 0 and 1, got {rate!r}")
    return float(rate)


def least_maximum_time(minutes: int) -> int:
    """The shortest maximum allowed time Prolific takes for an estimated time of `minutes`: 2 + 2t + 2√t,
    rounded up. Prolific's help centre ("Setting the Maximum Allowed Time") explains the floor and
    gives 2 + t + 2√t; its API refuses under 2 + 2t + 2√t, so that (the larger) is the one kept."""
    return math.ceil(2 + 2 * minutes + 2 * math.sqrt(minutes))


def _max_time(limit: Any, minutes: int) -> int | None:
    if limit is None:
        return None
    least = least_maximum_time(minutes)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < least:
        raise ScreeningError(
            f"maximum_allowed_time must be whole minutes, at least {least} for an estimated time of "
            f"{minutes} minutes (Prolific refuses less), got {limit!r}"
        )
    return limit
