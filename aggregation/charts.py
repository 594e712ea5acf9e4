"""The job dashboard's figures, drawn server-side with matplotlib to SVG text.

Pure module: no Django. Each function takes plain numbers and returns an ``<svg>`` element that a
template can inline, so the page needs no JavaScript and no static files.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SIZE = (5.0, 3.0)


def _plot() -> tuple[Figure, Axes]:
    """A fresh figure and its axes. matplotlib loads here, with the first chart, rather than in every
    process that imports the dashboard; and a bare ``Figure``, not pyplot, as matplotlib advises for a
    web server: no display backend to choose and no global list of figures to close."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=SIZE)
    return figure, figure.subplots()


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.tight_layout()
    figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    # Drop the XML prologue and doctype so the SVG can sit inline in HTML.
    return text[text.index("<svg") :]


def rho_histogram(values: Sequence[float | None], threshold: float | None) -> str:
    """Items by agreement ρ, with the keep threshold marked."""
    figure, axes = _plot()
    finite = np.array([v for v in values if v is not None], dtype=float)
    axes.hist(finite, bins=[n / 10 for n in range(11)], color="#4c72b0", edgecolor="white")
    if threshold is not None:
        axes.axvline(threshold, color="#c44e52", linestyle="--", label=f"threshold {threshold:g}")
        axes.legend(loc="upper left")
    axes.set_xlabel("agreement ρ")
    axes.set_ylabel("items")
    return _svg(figure)


def label_distribution(counts: Mapping[str, int]) -> str:
    """Items per aggregated label."""
    figure, axes = _plot()
    names = list(counts)
    axes.barh(names, [counts[name] for name in names], color="#55a868")
    axes.invert_yaxis()
    axes.set_xlabel("items")
    return _svg(figure)


def worker_agreement(
    agreement: Sequence[float | None], reliability: Sequence[float | None], flagged: Sequence[bool]
) -> str:
    """Each worker's agreement with the majority against the label model's reliability; flagged in red."""
    figure, axes = _plot()
    x = np.array([np.nan if v is None else v for v in agreement], dtype=float)
    y = np.array([np.nan if v is None else v for v in reliability], dtype=float)
    marked = np.array(flagged, dtype=bool)
    axes.scatter(x[~marked], y[~marked], color="#4c72b0", label="workers", s=18)
    axes.scatter(x[marked], y[marked], color="#c44e52", label="flagged", s=18, marker="x")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("agreement with the majority")
    axes.set_ylabel("model reliability")
    axes.legend(loc="lower right")
    return _svg(figure)
