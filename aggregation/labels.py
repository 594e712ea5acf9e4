"""Label sets of the built-in task types, in the release's spellings and orders, and the 5 → 3 collapse.

Pure module: no Django. A label set fixes the order of the columns of every count matrix built over it,
so the stance set's order *is* the release's ``voter_counts`` order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

NO_MAJORITY_LABEL = "NO_MAJORITY_LABEL"

SUPPORT = "SUPPORT"
MILDLY_SUPPORT = "MILDLY_SUPPORT"
MILDLY_UNDERMINE = "MILDLY_UNDERMINE"
UNDERMINE = "UNDERMINE"
NOT_VALID = "NOT_VALID"

SUPPORTED = "SUPPORTED"
NOT_SUPPORTED = "NOT_SUPPORTED"

SAME = "SAME"
DIFFERENT = "DIFFERENT"

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


# The release's voter_counts order: [support, mildly support, mildly undermine, undermine, not valid].
STANCE_5 = LabelSet("stance-5", (SUPPORT, MILDLY_SUPPORT, MILDLY_UNDERMINE, UNDERMINE, NOT_VALID))
STANCE_3 = LabelSet("stance-3", (SUPPORT, UNDERMINE, NOT_VALID))
EVIDENCE = LabelSet("evidence", (SUPPORTED, NOT_SUPPORTED))
PARAPHRASE = LabelSet("paraphrase", (SAME, DIFFERENT))

# Paper §4.1 step 2a: "collapsing mildly-support and mildly-oppose into support and oppose".
STANCE_5_TO_3: dict[str, str] = {
    SUPPORT: SUPPORT,
    MILDLY_SUPPORT: SUPPORT,
    MILDLY_UNDERMINE: UNDERMINE,
    UNDERMINE: UNDERMINE,
    NOT_VALID: NOT_VALID,
}

# Flipping a stance (a perspective copied onto an opposing claim) swaps the sides, keeps the intensity.
STANCE_FLIP: dict[str, str] = {
    SUPPORT: UNDERMINE,
    MILDLY_SUPPORT: MILDLY_UNDERMINE,
    MILDLY_UNDERMINE: MILDLY_SUPPORT,
    UNDERMINE: SUPPORT,
    NOT_VALID: NOT_VALID,
    NO_MAJORITY_LABEL: NO_MAJORITY_LABEL,
}


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


STANCE_COLLAPSE = Collapse(STANCE_5, STANCE_3, STANCE_5_TO_3)


def flip_stance(labels: Sequence[str]) -> list[str]:
    """Labels of a perspective moved to a claim of the opposite stance."""
    return [STANCE_FLIP[label] for label in labels]
