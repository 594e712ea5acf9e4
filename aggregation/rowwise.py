"""Row reductions over narrow (items × labels) matrices.

NumPy reduces ``axis=1`` of an (n × 3) array with an inner loop of length 3 per row, which measured
far slower than reducing the first axis of the contiguous transpose.
Aggregation does such reductions every EM iteration, so they go through here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def row_max(matrix: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return np.ascontiguousarray(matrix.T).max(axis=0)


def row_sum(matrix: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return np.ascontiguousarray(matrix.T).sum(axis=0)


def row_argmax(matrix: npt.NDArray[Any]) -> npt.NDArray[np.intp]:
    """Column of each row's first maximum, as ``argmax(axis=1)``."""
    return np.ascontiguousarray(matrix.T).argmax(axis=0).astype(np.intp, copy=False)
