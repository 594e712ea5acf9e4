"""Label sets and the collapses between them. Pure module: no Django.

A label set fixes the order of the columns of every count matrix built over it. Task types declare
their labels (``annotation.task_types``); ``rules.AgreementRule.declared`` builds the sets from them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from annotation.task_types.decisions import NO_MAJORITY_LABEL

# Code used wherever a label index is expected but there is no majority (a tie).
NO_MAJORITY = -1


class LabelSetError(ValueError):
    """A label set is malformed (empty, duplicated labels, or a collapse onto unknown labels)."""


@dataclass(frozen=True)
class LabelSet:
    """An ordered, closed set of labels; a label's code is its position."""

    name: str
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.labels) < 2:
            raise LabelSetError(f"label set {self.name!r} needs at least two labels")
        if len(set(self.labels)) != len(self.labels):
            raise LabelSetError(f"label set {self.name!r} repeats a label: {self.labels}")
        if NO_MAJORITY_LABEL in self.labels:
            raise LabelSetError(f"{NO_MAJORITY_LABEL} is an outcome, not a label a worker can choose")

    def __len__(self) -> int:
        return len(self.labels)

    def code(self, label: str) -> int:
        return self.labels.index(label)

    def codes(self, labels: Iterable[str]) -> list[int]:
        return [self.code(label) for label in labels]

    def name_of(self, code: int) -> str:
        """The label for a code, NO_MAJORITY_LABEL for the tie code."""
        return NO_MAJORITY_LABEL if code == NO_MAJORITY else self.labels[code]

    def names_of(self, codes: npt.ArrayLike) -> list[str]:
        return [self.name_of(int(code)) for code in np.asarray(codes).ravel()]


@dataclass(frozen=True)
class Collapse:
    """A many-to-one map between two label sets, applied to codes or to count matrices."""

    source: LabelSet
    target: LabelSet
    mapping: dict[str, str]

    def __post_init__(self) -> None:
        missing = set(self.source.labels) - set(self.mapping)
        unknown = set(self.mapping.values()) - set(self.target.labels)
        if missing or unknown:
            raise LabelSetError(f"collapse {self.source.name}→{self.target.name}: {missing=} {unknown=}")

    @property
    def code_map(self) -> npt.NDArray[np.intp]:
        """target code for each source code, as an index array."""
        return np.array([self.target.code(self.mapping[lab]) for lab in self.source.labels], dtype=np.intp)

    def codes(self, codes: npt.ArrayLike) -> npt.NDArray[np.intp]:
        return self.code_map[np.asarray(codes, dtype=np.intp)]

    def counts(self, counts: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Sum the columns of an (items × source labels) count matrix into target columns."""
        source = np.asarray(counts, dtype=np.int64)
        onto = np.zeros((len(self.source), len(self.target)), dtype=np.int64)
        onto[np.arange(len(self.source)), self.code_map] = 1
        return source @ onto
