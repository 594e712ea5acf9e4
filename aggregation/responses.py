"""Long-format crowd responses — one row per (item, worker, label) — validated once and integer-coded.

Every aggregator takes a :class:`Responses`; validation happens here, at the boundary, so the maths
modules can assume dense codes and at least two ratings somewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from aggregation.labels import LabelSet


class ResponsesError(ValueError):
    """Long-format responses cannot be aggregated."""


class NoItemsError(ResponsesError):
    """There is nothing to aggregate."""


class SingleRaterError(ResponsesError):
    """Agreement needs two raters; the data never has two on one item."""


class UnknownLabelError(ResponsesError):
    """A response uses a label outside the task's label set."""


class ColumnLengthError(ResponsesError):
    """The item, worker and label columns differ in length."""


def _encode(values: npt.ArrayLike) -> tuple[npt.NDArray[Any], npt.NDArray[np.intp]]:
    """Sorted unique values and each row's index into them."""
    array = np.asarray(values)
    if array.dtype.kind == "O":
        # Mixed Python objects do not sort reliably; compare them as strings, which is what ids are.
        array = array.astype(str)
    if _narrow_integers(array):
        return _encode_by_table(array)
    uniques, inverse = np.unique(array, return_inverse=True)
    return uniques, inverse.astype(np.intp, copy=False)


def _narrow_integers(array: npt.NDArray[Any]) -> bool:
    """Integers spanning no wider a range than the rows (or 2^20): a job's item or worker ids."""
    if not array.size or not (array.dtype.kind == "i" or (array.dtype.kind == "u" and array.itemsize < 8)):
        return False
    return int(array.max()) - int(array.min()) < max(len(array), 1 << 20)


def _encode_by_table(array: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.intp]]:
    """What ``np.unique(array, return_inverse=True)`` gives, in linear time: a table over the values'
    range marks those present, and its running count numbers them. Ten million ids sorted took a
    second or more each."""
    low = int(array.min())
    offsets = np.subtract(array, low, dtype=np.int64)
    present = np.zeros(int(offsets.max()) + 1, dtype=bool)
    present[offsets] = True
    number = np.cumsum(present, dtype=np.intp) - 1
    return (np.flatnonzero(present) + low).astype(array.dtype), number[offsets]


def label_codes(labels: npt.ArrayLike, label_set: LabelSet) -> npt.NDArray[np.intp]:
    uniques, inverse = _encode(labels)
    known = {label: code for code, label in enumerate(label_set.labels)}
    unknown = sorted(str(u) for u in uniques if str(u) not in known)
    if unknown:
        raise UnknownLabelError(f"labels not in {label_set.name} {list(label_set.labels)}: {unknown[:10]}")
    code_of_unique = np.array([known[str(u)] for u in uniques], dtype=np.intp)
    return code_of_unique[inverse]


@dataclass(frozen=True)
class Responses:
    """Validated long-format responses with dense integer codes.

    ``item_index[r]``/``worker_index[r]`` index ``items``/``workers``; ``label[r]`` is a code of
    ``label_set``. Build with :meth:`from_columns` (labels as strings) or :meth:`from_codes`.
    """

    items: npt.NDArray[Any]
    workers: npt.NDArray[Any]
    item_index: npt.NDArray[np.intp]
    worker_index: npt.NDArray[np.intp]
    label: npt.NDArray[np.intp]
    label_set: LabelSet

    @classmethod
    def from_columns(
        cls,
        items: npt.ArrayLike,
        workers: npt.ArrayLike,
        labels: npt.ArrayLike,
        label_set: LabelSet,
        *,
        require_overlap: bool = True,
    ) -> Responses:
        """Validate and encode three equal-length columns; labels are spelled as in ``label_set``."""
        _check_lengths(items, workers, labels)
        return cls._build(items, workers, label_codes(labels, label_set), label_set, require_overlap)

    @classmethod
    def from_codes(
        cls,
        items: npt.ArrayLike,
        workers: npt.ArrayLike,
        codes: npt.ArrayLike,
        label_set: LabelSet,
        *,
        require_overlap: bool = True,
    ) -> Responses:
        """As :meth:`from_columns`, with labels already given as codes of ``label_set``."""
        _check_lengths(items, workers, codes)
        label = np.asarray(codes)
        if label.size and (label.dtype.kind not in "iu" or label.min() < 0 or label.max() >= len(label_set)):
            bad = sorted({int(c) for c in np.unique(label) if not 0 <= int(c) < len(label_set)})
            raise UnknownLabelError(f"codes outside 0..{len(label_set) - 1} of {label_set.name}: {bad[:10]}")
        return cls._build(items, workers, label.astype(np.intp, copy=False), label_set, require_overlap)

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[Any, Any, str]], label_set: LabelSet) -> Responses:
        """Convenience for small literal data: a list of (item, worker, label) tuples."""
        if not rows:
            raise NoItemsError("no responses: nothing to aggregate")
        items, workers, labels = zip(*rows, strict=True)
        return cls.from_columns(list(items), list(workers), list(labels), label_set)

    @classmethod
    def _build(
        cls,
        items: npt.ArrayLike,
        workers: npt.ArrayLike,
        label: npt.NDArray[np.intp],
        label_set: LabelSet,
        require_overlap: bool,
    ) -> Responses:
        item_values, item_index = _encode(items)
        worker_values, worker_index = _encode(workers)
        responses = cls(item_values, worker_values, item_index, worker_index, label, label_set)
        if require_overlap and responses.raters_per_item().max() < 2:
            raise SingleRaterError(
                "every item has a single rater: agreement and label models need two raters on some item"
            )
        return responses

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_workers(self) -> int:
        return len(self.workers)

    @property
    def n_labels(self) -> int:
        return len(self.label_set)

    def __len__(self) -> int:
        return len(self.label)

    def counts(self) -> npt.NDArray[np.int64]:
        """(items × labels) matrix: how many responses gave each label to each item. Counted once and
        shared, so read-only (an aggregation asks for it five times)."""
        return self._counts

    @cached_property
    def _counts(self) -> npt.NDArray[np.int64]:
        flat = self.item_index * self.n_labels + self.label
        matrix = np.bincount(flat, minlength=self.n_items * self.n_labels).reshape(
            self.n_items, self.n_labels
        )
        matrix.flags.writeable = False
        return matrix

    def raters_per_item(self) -> npt.NDArray[np.int64]:
        """Responses per item (a worker who answered twice counts twice, as in Dawid–Skene's data)."""
        return np.bincount(self.item_index, minlength=self.n_items)

    def responses_per_worker(self) -> npt.NDArray[np.int64]:
        return np.bincount(self.worker_index, minlength=self.n_workers)


def _check_lengths(items: npt.ArrayLike, workers: npt.ArrayLike, labels: npt.ArrayLike) -> None:
    lengths = {len(np.asarray(column)) for column in (items, workers, labels)}
    if len(lengths) != 1:
        raise ColumnLengthError(f"item, worker and label columns differ in length: {sorted(lengths)}")
    if lengths == {0}:
        raise NoItemsError("no responses: nothing to aggregate")
