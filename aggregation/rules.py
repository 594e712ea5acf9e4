"""Keep/reject rules as data with their thresholds, and the per-item outcomes they give.

A rule is a value (it is recorded beside every result it decides, via :meth:`AgreementRule.describe`),
built from what a task type declares (:meth:`AgreementRule.declared`); every number is an argument.
Pure module: the task types' hooks write outcomes back to the corpus.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from aggregation.agreement import majority, rho
from aggregation.labels import NO_MAJORITY, Collapse, LabelSet, LabelSetError
from aggregation.responses import Responses
from annotation.task_types.rules import CategoricalRule

KEPT = "kept"
REJECTED = "rejected"


class Comparison(StrEnum):
    """How ρ is compared with a threshold. The paper says ρ ≥ 0.5; the original code used ρ > 0.5."""

    AT_LEAST = ">="
    ABOVE = ">"

    def passes(self, values: npt.ArrayLike, threshold: float) -> npt.NDArray[np.bool_]:
        """Elementwise test; NaN (an item with fewer than two ratings) never passes."""
        array = np.asarray(values, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            return array >= threshold if self is Comparison.AT_LEAST else array > threshold


@dataclass(frozen=True)
class AgreementRule:
    """Keep an item when ρ on ``label_set`` passes ``threshold`` and its majority is in ``keep``.

    ``collapse`` maps the workers' labels onto ``label_set`` first (stance: 5 → 3). With
    ``threshold=None`` only the majority decides (paraphrase verification).
    """

    task: str
    label_set: LabelSet
    keep: frozenset[str]
    threshold: float | None = 0.5
    comparison: Comparison = Comparison.AT_LEAST
    collapse: Collapse | None = None

    def __post_init__(self) -> None:
        unknown = self.keep - set(self.label_set.labels)
        if unknown:
            raise LabelSetError(f"rule {self.task!r} keeps labels outside {self.label_set.name}: {unknown}")
        if self.collapse is not None and self.collapse.target != self.label_set:
            raise LabelSetError(f"rule {self.task!r} collapses onto {self.collapse.target.name}, not its set")

    @property
    def answer_set(self) -> LabelSet:
        """The label set workers answer in."""
        return self.collapse.source if self.collapse is not None else self.label_set

    def describe(self) -> str:
        """One line recorded with each decision, e.g. ``stance: rho(stance-3) >= 0.5 and majority in …``."""
        keep = "{" + ", ".join(sorted(self.keep)) + "}"
        if self.threshold is None:
            return f"{self.task}: majority in {keep}"
        agreement = f"rho({self.label_set.name}) {self.comparison} {self.threshold:g}"
        return f"{self.task}: {agreement} and majority in {keep}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "label_set": self.label_set.name,
            "labels": list(self.answer_set.labels),
            "collapse": dict(self.collapse.mapping) if self.collapse else None,
            "keep": sorted(self.keep),
            "threshold": self.threshold,
            "comparison": str(self.comparison),
        }

    def with_threshold(self, threshold: float | None, comparison: Comparison | None = None) -> AgreementRule:
        return replace(self, threshold=threshold, comparison=comparison or self.comparison)

    @classmethod
    def declared(cls, rule: CategoricalRule) -> AgreementRule:
        """The rule a task type declares, as label sets, collapse and comparison."""
        answers = LabelSet(rule.label_set, rule.labels)
        decided, collapse = answers, None
        if rule.collapse is not None:
            decided = LabelSet(rule.collapse.label_set, rule.collapse.labels)
            collapse = Collapse(answers, decided, dict(rule.collapse.mapping))
        comparison = Comparison(rule.comparison)
        return cls(rule.name, decided, rule.keep, rule.threshold, comparison, collapse)


@dataclass(frozen=True)
class OutcomeRow:
    """One item's outcome, in the corpus's vocabulary."""

    item: Any
    counts: list[int]
    label: str
    fine_label: str
    agreement: float | None
    status: str


@dataclass(frozen=True)
class RuleOutcome:
    """Per-item outcome of a rule, columnar (one entry per item, in ``items`` order).

    ``counts`` are in the workers' label order (for stance: the release's ``voter_counts`` order);
    ``fine_labels`` is the majority over those labels (stance: the 5-way label), ``labels`` the majority
    over the rule's set (stance: the 3-way label); both use NO_MAJORITY for ties.
    """

    rule: AgreementRule
    items: npt.NDArray[Any]
    counts: npt.NDArray[np.int64]
    fine_labels: npt.NDArray[np.intp]
    labels: npt.NDArray[np.intp]
    agreement: npt.NDArray[np.float64]
    kept: npt.NDArray[np.bool_] = field(repr=False)

    @property
    def no_majority(self) -> npt.NDArray[np.bool_]:
        return self.labels == NO_MAJORITY

    def summary(self) -> dict[str, int]:
        return {
            "items": len(self.items),
            KEPT: int(self.kept.sum()),
            REJECTED: int((~self.kept).sum()),
            "no_majority": int(self.no_majority.sum()),
        }

    def rows(self) -> Iterator[OutcomeRow]:
        labels = self.rule.label_set.names_of(self.labels)
        fine = self.rule.answer_set.names_of(self.fine_labels)
        for i, item in enumerate(self.items.tolist()):
            value = float(self.agreement[i])
            yield OutcomeRow(
                item=item,
                counts=self.counts[i].tolist(),
                label=labels[i],
                fine_label=fine[i],
                agreement=None if np.isnan(value) else value,
                status=KEPT if self.kept[i] else REJECTED,
            )


def apply_rule_to_counts(items: npt.ArrayLike, counts: npt.ArrayLike, rule: AgreementRule) -> RuleOutcome:
    """Decide every item from its (items × answer labels) counts, e.g. a release's ``voter_counts``."""
    answered = np.asarray(counts, dtype=np.int64)
    if answered.ndim != 2 or answered.shape[1] != len(rule.answer_set):
        expected = len(rule.answer_set)
        raise LabelSetError(f"{rule.task} counts need {expected} columns; got shape {answered.shape}")
    decided = rule.collapse.counts(answered) if rule.collapse is not None else answered
    labels = majority(decided)
    agreement = rho(decided)
    keep_codes = np.array(rule.label_set.codes(sorted(rule.keep)), dtype=np.intp)
    kept = np.isin(labels, keep_codes)
    if rule.threshold is not None:
        kept &= rule.comparison.passes(agreement, rule.threshold)
    return RuleOutcome(
        rule=rule,
        items=np.asarray(items),
        counts=answered,
        fine_labels=majority(answered),
        labels=labels,
        agreement=agreement,
        kept=kept,
    )


def apply_rule(responses: Responses, rule: AgreementRule) -> RuleOutcome:
    """Decide every item of long-format responses given in the rule's answer set."""
    if responses.label_set != rule.answer_set:
        given = responses.label_set.name
        raise LabelSetError(f"rule {rule.task!r} reads {rule.answer_set.name} answers, not {given}")
    return apply_rule_to_counts(responses.items, responses.counts(), rule)
