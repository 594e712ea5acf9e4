"""One small interface for label models over long-format responses (after crowd-kit's ``fit``).

``model.fit(responses)`` returns an :class:`Aggregate`: a label per item (NO_MAJORITY where the
model cannot decide), per-item label probabilities, and a reliability per worker. Models are plain
parameter holders; fitting is deterministic, so aggregating a job twice gives the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from aggregation.agreement import majority, worker_agreement_with_majority
from aggregation.labels import NO_MAJORITY, LabelSet
from aggregation.responses import Responses
from aggregation.rowwise import row_argmax, row_max, row_sum

if TYPE_CHECKING:
    from scipy import sparse

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
    # (workers × true × given): each worker's estimated P(answer | truth), crowd-kit's ``errors_``.
    worker_confusion: FloatArray | None = None
    # The prior over true labels the model used, and where it came from ("estimated", "uniform" …).
    class_prior: FloatArray | None = None
    prevalence: str = ""

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
    """Plurality per item, ties → NO_MAJORITY; reliability = agreement with the others' majority.

    ``workers=False``: the items' labels and vote shares only, the workers' figures left for
    :meth:`with_workers` (all NaN until then): an aggregation finds them while it writes the items'."""

    name = "majority_vote"

    def __init__(self, *, workers: bool = True) -> None:
        self.workers = workers

    def fit(self, responses: Responses) -> Aggregate:
        counts = responses.counts()
        totals, decided = row_sum(counts)[:, None], majority(counts)
        items = Aggregate(
            model=self.name,
            items=responses.items,
            workers=responses.workers,
            label_set=responses.label_set,
            labels=decided,
            probabilities=counts / np.maximum(totals, 1),
            worker_reliability=np.full(responses.n_workers, np.nan),
        )
        return self.with_workers(items, responses) if self.workers else items

    @staticmethod
    def with_workers(fitted: Aggregate, responses: Responses) -> Aggregate:
        """The fit with each worker's agreement with the others' majority and confusion added."""
        return replace(
            fitted,
            worker_reliability=worker_agreement_with_majority(responses),
            worker_confusion=confusion_against(responses, fitted.labels),
        )


def confusion_against(responses: Responses, decided: IntArray) -> FloatArray:
    """(workers × true × given): each worker's answers tabulated against ``decided`` (items without a
    decision left out), rows normalised; a true label a worker never met gets a uniform row."""
    k = responses.n_labels
    # The undecided tabulated too, as a true label of their own (−1 + 1 = 0), then dropped: cheaper
    # than masking ten million rows out.
    true = decided[responses.item_index] + 1
    cell = (responses.worker_index * (k + 1) + true) * k + responses.label
    table = np.bincount(cell, minlength=responses.n_workers * (k + 1) * k).reshape(
        responses.n_workers, k + 1, k
    )
    table = table[:, 1:, :]
    rows = table.sum(axis=2, keepdims=True)
    return np.where(rows > 0, table / np.maximum(rows, 1), 1.0 / k)


def vote_shares(responses: Responses) -> FloatArray:
    """Each item's label shares: the soft majority vote that EM models start from."""
    counts = responses.counts().astype(np.float64)
    return counts / row_sum(counts)[:, None]


@dataclass(frozen=True)
class Incidence:
    """Responses as a sparse (items × worker-label cells) count matrix, cell = worker·K + label.

    Both EM models only ever need, per iteration, the items' sums over a per-cell table (E-step)
    and the cells' sums over a per-item table (M-step): two sparse products with one non-zero per
    response. That is why scipy.sparse is used rather than per-class ``bincount`` loops, which
    measured far slower (`python -m bench aggregation` times the models).
    """

    item_by_cell: sparse.csr_matrix
    cell_by_item: sparse.csr_matrix
    n_workers: int
    n_labels: int

    @classmethod
    def of(cls, responses: Responses) -> Incidence:
        from scipy import sparse  # here, not at the top: a process that never fits a model does not load it

        k = responses.n_labels
        cell = responses.worker_index * k + responses.label
        ones = np.ones(len(responses))
        shape = (responses.n_items, responses.n_workers * k)
        item_by_cell = sparse.csr_matrix((ones, (responses.item_index, cell)), shape=shape)
        return cls(item_by_cell, item_by_cell.T.tocsr(), responses.n_workers, k)

    def per_item(self, per_cell: FloatArray) -> FloatArray:
        """(items × classes): Σ over an item's responses of their cell's row of ``per_cell``."""
        return np.asarray(self.item_by_cell @ per_cell)

    def per_cell(self, per_item: FloatArray) -> FloatArray:
        """(workers × given labels × classes): Σ over a cell's responses of their item's row."""
        summed = np.asarray(self.cell_by_item @ per_item)
        return summed.reshape(self.n_workers, self.n_labels, per_item.shape[1])

    def responses_per_cell(self) -> FloatArray:
        """(workers × given labels): how many responses each worker gave with each label."""
        counted = np.asarray(self.cell_by_item.sum(axis=1)).ravel()
        return counted.reshape(self.n_workers, self.n_labels)


def normalise_log(log_joint: FloatArray) -> tuple[FloatArray, float]:
    """Posterior rows from unnormalised log joints, and the total log-likelihood (log-sum-exp)."""
    peak = row_max(log_joint)[:, None]
    weights = np.exp(log_joint - peak)
    totals = row_sum(weights)[:, None]
    log_likelihood = float(np.sum(np.log(totals) + peak))
    return weights / totals, log_likelihood


def decide(posteriors: FloatArray) -> IntArray:
    """Most probable class per item; an exact tie (e.g. an item nobody could inform) → NO_MAJORITY."""
    labels = row_argmax(posteriors)
    top = row_max(posteriors)[:, None]
    labels[row_sum(np.abs(posteriors - top) <= 1e-12) > 1] = NO_MAJORITY
    return labels


def has_converged(previous: float, current: float, tol: float) -> bool:
    return abs(current - previous) <= tol * max(1.0, abs(current))
