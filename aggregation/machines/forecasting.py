"""What routing a job between a machine and the crowd will cost, forecast from its calibration sample
before anything else is spent. Pure module: no Django.

The machine labels every item (its score is what routes an item); the crowd labels the calibration
sample and every other item the machine's threshold does not accept. The share accepted is known
once the machine has scored the items and the calibration sample has chosen the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from aggregation.machines.routing import Routing

CENT = Decimal("0.01")


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Forecast:
    """Expected share of items accepted from the machine and the money on each side."""

    items: int
    share_accepted: float
    machine_cost: Decimal
    crowd_cost: Decimal
    crowd_only_cost: Decimal  # the same job without a machine

    @property
    def saved(self) -> Decimal:
        return self.crowd_only_cost - self.crowd_cost - self.machine_cost

    def describe(self, currency: str = "USD") -> str:
        return (
            f"expected share accepted from the machine {self.share_accepted:.1%} of {self.items} items; "
            f"machine {self.machine_cost} {currency}, crowd {self.crowd_cost} {currency} "
            f"(crowd alone {self.crowd_only_cost} {currency}, saved {self.saved} {currency})"
        )


def forecast(routing: Routing, items: int, machine_per_item: Decimal, crowd_per_item: Decimal) -> Forecast:
    """The forecast for ``items`` items, the calibration sample among them, at these prices per item
    (the crowd's: reward × labels per item under the job's redundancy, fees included)."""
    rest = items - routing.calibration_items
    share = routing.share_accepted
    crowd_items = Decimal(routing.calibration_items) + Decimal(rest) * Decimal(1 - share)
    return Forecast(
        items,
        share,
        _cents(Decimal(items) * machine_per_item),
        _cents(crowd_items * crowd_per_item),
        _cents(Decimal(items) * crowd_per_item),
    )
