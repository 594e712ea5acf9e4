"""The forecast of a routed job's cost (issue 46), worked by hand."""

from __future__ import annotations

from decimal import Decimal

from aggregation.machines.forecasting import forecast
from aggregation.machines.routing import Routing


def routing(threshold: float | None, share: float) -> Routing:
    return Routing(threshold, 0.05, 0.05, 1000, 0, 0, share, 0.01, "")


def test_half_the_other_items_accepted_saves_their_crowd_cost_less_the_machines() -> None:
    # 5,000 items: the crowd labels the 1,000 calibration items and half of the other 4,000.
    planned = forecast(routing(0.8, 0.5), 5000, Decimal("0.002"), Decimal("0.25"))
    assert planned.machine_cost == Decimal("10.00")
    assert planned.crowd_cost == Decimal("750.00")
    assert planned.crowd_only_cost == Decimal("1250.00")
    assert planned.saved == Decimal("490.00")
    assert "50.0% of 5000 items" in planned.describe()


def test_nothing_accepted_costs_the_machine_on_top_of_the_crowd() -> None:
    planned = forecast(routing(None, 0.0), 5000, Decimal("0.002"), Decimal("0.25"))
    assert planned.crowd_cost == planned.crowd_only_cost
    assert planned.saved == Decimal("-10.00")
