"""How a job is aggregated, as data: the threshold applied to the task type's rule, the label model,
and the thresholds that contest items and flag workers. Pure module: no Django.

A policy is recorded with every aggregation run (``as_dict``) and read back for the next one, so a
job re-aggregated on demand decides exactly as it did before unless someone changes a number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from aggregation.dawid_skene import DawidSkene
from aggregation.deciding import DECISIONS
from aggregation.label_models import LabelModel, MajorityVote
from aggregation.labels import NO_MAJORITY
from aggregation.mace import MACE
from aggregation.rules import AgreementRule, Comparison
from aggregation.topics import TopicRule
from annotation.task_types.rules import MultiLabelRule

LABEL_MODELS: dict[str, Callable[[], LabelModel]] = {
    "dawid_skene": DawidSkene,
    "mace": MACE,
    "majority_vote": MajorityVote,
}

DROP_WORKERS = frozenset({"none", "blocked", "flagged"})
LOW_AGREEMENT, NO_MAJORITY_REASON, GOLD, MODEL = "low_agreement", "no_majority", "gold", "model"
LOW_POSTERIOR = "low_posterior"
LOW_WORKER_AGREEMENT, LOW_RELIABILITY, LOW_GOLD = "low_agreement", "low_reliability", "low_gold_accuracy"


class PolicyError(ValueError):
    """A policy names an unknown label model or comparison, or a threshold out of range."""


@dataclass(frozen=True)
class AggregationPolicy:
    """Every number that decides an aggregation. ``threshold=None`` keeps the rule's own default."""

    threshold: float | None = None
    comparison: str | None = None
    label_model: str = "dawid_skene"
    # Who writes the label: the rule (majority and ρ, as the paper) or the label model; with the model,
    # an item whose posterior is below `min_posterior` is rejected and sent to an expert.
    decide: str = "rule"
    min_posterior: float = 0.0
    # Worker flags: judged only once a worker has given `min_worker_responses` answers in the job.
    min_worker_agreement: float = 0.6
    min_worker_reliability: float = 0.6
    min_worker_responses: int = 10
    min_gold_accuracy: float = 0.7
    min_gold_answered: int = 3
    topic_min_share: float = 0.5
    # Whose answers vote besides confirmed, unrejected work: everybody's ("none" dropped), or not the
    # workers blocked in the admin ("blocked"), or not those flagged by the job's last run ("flagged").
    drop_workers: str = "none"

    def __post_init__(self) -> None:
        if self.drop_workers not in DROP_WORKERS:
            raise PolicyError(
                f"drop_workers must be one of {sorted(DROP_WORKERS)}, not {self.drop_workers!r}"
            )
        if self.decide not in DECISIONS:
            raise PolicyError(f"decide must be one of {list(DECISIONS)}, not {self.decide!r}")
        if self.label_model not in LABEL_MODELS:
            raise PolicyError(f"unknown label model {self.label_model!r}; known: {sorted(LABEL_MODELS)}")
        if self.comparison is not None and self.comparison not in {c.value for c in Comparison}:
            raise PolicyError(f"comparison must be one of {[c.value for c in Comparison]}")
        shares = [self.min_worker_agreement, self.min_worker_reliability, self.min_gold_accuracy]
        if self.threshold is not None:
            shares.append(self.threshold)
        if not all(0.0 <= share <= 1.0 for share in [*shares, self.topic_min_share, self.min_posterior]):
            raise PolicyError("thresholds and shares must lie between 0 and 1")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> AggregationPolicy:
        """A policy from recorded or user-given values; unknown names are refused, not ignored."""
        values = dict(values or {})
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise PolicyError(f"unknown policy setting(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**values)

    def merged(self, overrides: Mapping[str, Any] | None) -> AggregationPolicy:
        given = {name: value for name, value in dict(overrides or {}).items() if value is not None}
        return AggregationPolicy.from_mapping({**asdict(self), **given})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def applied_to(self, rule: AgreementRule) -> AgreementRule:
        """A task type's rule with this policy's threshold and comparison applied."""
        if rule.threshold is None and self.threshold is not None:
            return rule  # a majority-only rule (paraphrase) has no agreement threshold to move
        threshold = self.threshold if self.threshold is not None else rule.threshold
        comparison = Comparison(self.comparison) if self.comparison else None
        return rule.with_threshold(threshold, comparison)

    def shares_rule(self, declared: MultiLabelRule) -> TopicRule:
        """A multi-label task type's rule with this policy's share of raters."""
        return TopicRule.declared(declared, self.topic_min_share)

    def model(self) -> LabelModel:
        return LABEL_MODELS[self.label_model]()


# The reasons an item is contested, in the order a list of them is written; bit n of a mask is REASONS[n].
REASONS = (LOW_AGREEMENT, NO_MAJORITY_REASON, GOLD, MODEL, LOW_POSTERIOR)


def contest_reason_masks(
    rule: AgreementRule,
    agreement: npt.NDArray[np.float64],
    labels: npt.NDArray[np.intp],
    model_labels: npt.NDArray[np.intp],
    reference: npt.NDArray[np.intp],
    low_posterior: npt.NDArray[np.bool_] | None = None,
) -> npt.NDArray[np.int16]:
    """Per item, why an expert should look at it: ρ fails the rule, no majority, the majority disagrees
    with a gold/crawled answer (``reference`` ≥ 0 where known), the label model disagrees with it, or
    (the model deciding) the model's posterior is below the policy's. One bit per reason (REASONS)."""
    low = (
        ~rule.comparison.passes(agreement, rule.threshold)
        if rule.threshold is not None
        else np.zeros(len(labels), dtype=bool)
    )
    tied = labels == NO_MAJORITY
    gold = (reference >= 0) & ~tied & (labels != reference)
    model = ~tied & (model_labels != NO_MAJORITY) & (model_labels != labels)
    unsure = np.zeros(len(labels), dtype=bool) if low_posterior is None else low_posterior
    masks = np.zeros(len(labels), dtype=np.int16)
    for bit, column in enumerate((low, tied, gold, model, unsure)):
        masks |= np.asarray(column, dtype=np.int16) << bit
    return masks


def reasons_of(mask: int) -> list[str]:
    """The reasons a mask of :func:`contest_reason_masks` stands for, in REASONS order."""
    return [name for bit, name in enumerate(REASONS) if mask >> bit & 1]


def worker_flags(
    policy: AggregationPolicy,
    responses: npt.NDArray[np.int64],
    agreement: npt.NDArray[np.float64],
    reliability: npt.NDArray[np.float64],
    gold_answered: npt.NDArray[np.int64],
    gold_correct: npt.NDArray[np.int64],
) -> list[list[str]]:
    """Per worker, the quality checks they fail. NaN (nothing to judge by) never fails a check."""
    enough = responses >= policy.min_worker_responses
    with np.errstate(invalid="ignore", divide="ignore"):
        low_agreement = enough & (agreement < policy.min_worker_agreement)
        low_reliability = enough & (reliability < policy.min_worker_reliability)
        gold_share = np.where(gold_answered > 0, gold_correct / np.maximum(gold_answered, 1), np.nan)
        low_gold = (gold_answered >= policy.min_gold_answered) & (gold_share < policy.min_gold_accuracy)
    columns = (
        (LOW_WORKER_AGREEMENT, low_agreement),
        (LOW_RELIABILITY, low_reliability),
        (LOW_GOLD, low_gold),
    )
    return [[name for name, column in columns if column[w]] for w in range(len(responses))]
