"""One small interface for label models over long-format responses (after crowd-kit's ``fit``).

``model.fit(responses)`` returns an :class:`Aggregate`: a label per item (NO_MAJORITY where the
model cannot decide), per-item label probabilities, and a reliability per worker. Models are plain
parameter holders; fitting is deterministic, so aggregating a job twice gives the same result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from aggregation.agreement import majority, worker_agreement_with_majority
from aggregation.labels import NO_MAJORITY, LabelSet
from aggregation.responses import Responses

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class Aggregate:
    """What a label model concludes about a set of responses."""

    model: str
    items: npt.NDArray[Any]
    workers: npt.NDArray[Any]
    label_set: LabelSet
    labels: IntArray
    probabilities: FloatArray
    worker_reliability: FloatArray
    iterations: int = 0
    converged: bool = True
    log_likelihood: float = float("nan")

    def label_names(self) -> list[str]:
        return self.label_set.names_of(self.labels)

    def labels_by_item(self) -> dict[Any, str]:
        return dict(zip(self.items.tolist(), self.label_names(), strict=True))

    def reliability_by_worker(self) -> dict[Any, float]:
        return dict(zip(self.workers.tolist(), self.worker_reliability.tolist(), strict=True))


class LabelModel(Protocol):
    @property
    def name(self) -> str: ...

    def fit(self, responses: Responses) -> Aggregate: ...


class MajorityVote:
    """Plurality per item, ties → NO_MAJORITY; reliability = agreement with the others' majority."""

    name = "majority_vote"

    def fit(self, responses: Responses) -> Aggregate:
        counts = responses.counts()
        totals = counts.sum(axis=1, keepdims=True)
        return Aggregate(
            model=self.name,
            items=responses.items,
            workers=responses.workers,
            label_set=responses.label_set,
            labels=majority(counts),
            probabilities=counts / np.maximum(totals, 1),
            worker_reliability=worker_agreement_with_majority(responses),
        )


def vote_shares(responses: Responses) -> FloatArray:
    """Each item's label shares: the soft majority vote that EM models start from."""
    counts = responses.counts().astype(np.float64)
    return counts / counts.sum(axis=1, keepdims=True)


def sum_per_item(responses: Responses, per_response: FloatArray) -> FloatArray:
    """Sum an (responses × classes) array into (items × classes), one bincount per class."""
    return np.stack(
        [
            np.bincount(responses.item_index, weights=per_response[:, c], minlength=responses.n_items)
            for c in range(per_response.shape[1])
        ],
        axis=1,
    )


def normalise_log(log_joint: FloatArray) -> tuple[FloatArray, float]:
    """Posterior rows from unnormalised log joints, and the total log-likelihood (log-sum-exp)."""
    peak = log_joint.max(axis=1, keepdims=True)
    weights = np.exp(log_joint - peak)
    totals = weights.sum(axis=1, keepdims=True)
    log_likelihood = float(np.sum(np.log(totals) + peak))
    return weights / totals, log_likelihood


def decide(posteriors: FloatArray) -> IntArray:
    """Most probable class per item; an exact tie (e.g. an item nobody could inform) → NO_MAJORITY."""
    labels = posteriors.argmax(axis=1).astype(np.intp)
    top = posteriors.max(axis=1, keepdims=True)
    labels[np.isclose(posteriors, top, rtol=0.0, atol=1e-12).sum(axis=1) > 1] = NO_MAJORITY
    return labels


def has_converged(previous: float, current: float, tol: float) -> bool:
    return abs(current - previous) <= tol * max(1.0, abs(current))
