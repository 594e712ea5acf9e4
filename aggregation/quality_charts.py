"""The quality panel's figure: each worker's live accuracy estimate over their submits. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aggregation.charts import _plot, _svg


def accuracy_over_time(series: Mapping[str, Sequence[float]], stopped: Sequence[str], bar: float) -> str:
    """One line per worker (their estimate after each submit), stopped workers in red, the bar dashed."""
    figure, axes = _plot()
    for name, values in series.items():
        colour, width = ("#c44e52", 1.6) if name in stopped else ("#4c72b0", 0.8)
        axes.plot(range(1, len(values) + 1), values, color=colour, linewidth=width, alpha=0.8)
    axes.axhline(bar, color="#555555", linestyle="--", label=f"the job's bar {bar:g}")
    axes.set_ylim(0, 1)
    axes.set_xlabel("the worker's submits")
    axes.set_ylabel("estimated accuracy")
    axes.legend(loc="lower right")
    return _svg(figure)
