"""Simulated crowds as hard as real ones, for the label-model grid and adaptive redundancy.

Real crowd labels are skewed (PERSPECTRUM's evidence labels: about four in five "not supported"),
come from few workers per item, and mix honest workers of uneven skill with spammers and with
biased workers who reach for one label whenever unsure. A balanced crowd of honest workers flatters
models whose assumptions fail on skewed classes (MACE's uniform prior over true labels), so every
crowd here draws all of those kinds. Pure module: no Django; seeded, so a crowd is reproducible.

Each worker has a confusion matrix ``confusion[w, true, given]``; every label they give is drawn
from the row of the item's true label. The whole pool answers every item (``answers``) so that a
policy asking for labels one at a time sees them in a fixed arrival order; ``first(n)`` is the fixed
policy that takes the first ``n`` of each item's answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from aggregation.label_models import FloatArray, IntArray

HONEST, BIASED, SPAMMER = 0, 1, 2


@dataclass(frozen=True)
class CrowdSpec:
    """One cell of the grid: the majority class's share, workers per item and the spammers' share.

    ``biased_share`` of the pool favour one label (mostly the frequent one, as real workers do when
    unsure); ``pool`` workers answer ``items`` items, ``arrivals`` answers per item are drawn for
    adaptive policies to ask for (at least ``per_item``).
    """

    majority_share: float = 0.8
    per_item: int = 5
    spam_share: float = 0.1
    biased_share: float = 0.2
    items: int = 600
    pool: int = 16
    n_labels: int = 2
    arrivals: int = 0
    seed: int = 0

    def describe(self) -> str:
        minority = round(100 * (1 - self.majority_share))
        return f"skew={100 - minority}/{minority} workers/item={self.per_item} spammers={self.spam_share:.0%}"


@dataclass(frozen=True)
class Crowd:
    """Every answer the pool would give, in arrival order per item, and the truth."""

    truth: IntArray  # per item
    kinds: IntArray  # per worker: HONEST, BIASED or SPAMMER
    confusion: FloatArray  # (workers × true × given)
    # (items × arrivals): the worker and the label of each item's j-th arriving answer
    answer_workers: IntArray
    answer_labels: IntArray
    prevalence: FloatArray  # the share of each true class the items were drawn from

    def first(self, n: int) -> tuple[IntArray, IntArray, IntArray]:
        """The long format (items, workers, labels) of the first ``n`` answers of every item."""
        n_items = len(self.truth)
        items = np.repeat(np.arange(n_items), n)
        return items, self.answer_workers[:, :n].ravel(), self.answer_labels[:, :n].ravel()

    def true_posteriors(self, items: IntArray, workers: IntArray, labels: IntArray) -> FloatArray:
        """(items × classes): each item's posterior under the crowd's true confusion matrices and
        prevalence, from the answers given in long format. Deciding by it is the best any label model
        can do on average: the ceiling a model's estimated parameters can only approach."""
        return true_posteriors(self.prevalence, self.confusion, items, workers, labels, len(self.truth))

    @property
    def majority_class_accuracy(self) -> float:
        """Accuracy of answering the most frequent true class every time."""
        return float(np.bincount(self.truth).max() / len(self.truth))


def true_posteriors(
    prevalence: FloatArray,
    confusion: FloatArray,
    items: IntArray,
    workers: IntArray,
    labels: IntArray,
    n_items: int,
) -> FloatArray:
    """(items × classes): the posterior of each item's class under these true parameters (the
    prevalence, and per worker P(given | true) as ``confusion[worker, true, given]``), from answers in
    long format."""
    log_joint = np.tile(np.log(prevalence), (n_items, 1))
    np.add.at(log_joint, items, np.log(confusion[workers, :, labels]))
    weights = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    return np.asarray(weights / weights.sum(axis=1, keepdims=True), dtype=np.float64)


def simulate_crowd(spec: CrowdSpec) -> Crowd:
    """Draw a crowd: truth from the skew, workers' confusion matrices, each item's arriving answers."""
    rng = np.random.default_rng(
        [spec.seed, round(1000 * spec.majority_share), spec.per_item, round(1000 * spec.spam_share)]
    )
    k = spec.n_labels
    prevalence = np.full(k, (1 - spec.majority_share) / max(k - 1, 1))
    prevalence[0] = spec.majority_share
    truth = rng.choice(k, size=spec.items, p=prevalence)
    kinds = _worker_kinds(spec, rng)
    confusion = np.stack([_confusion(kind, k, rng) for kind in kinds.tolist()])
    arrivals = max(spec.arrivals, spec.per_item)
    if arrivals > spec.pool:
        raise ValueError(f"{arrivals} answers per item need a pool of at least as many workers")
    # Busy workers answer more: each item draws its distinct workers by a skewed activity weight.
    activity = rng.dirichlet(np.full(spec.pool, 1.5))
    workers = np.stack([rng.choice(spec.pool, arrivals, replace=False, p=activity) for _ in truth])
    cumulative = confusion[workers, truth[:, None], :].cumsum(axis=2)
    labels = (rng.random(workers.shape)[:, :, None] > cumulative).sum(axis=2)
    answers = np.minimum(labels, k - 1).astype(np.intp)
    return Crowd(truth, kinds, confusion, workers.astype(np.intp), answers, prevalence)


def _worker_kinds(spec: CrowdSpec, rng: np.random.Generator) -> IntArray:
    spammers = round(spec.spam_share * spec.pool)
    biased = min(round(spec.biased_share * spec.pool), spec.pool - spammers - 1)
    kinds = np.full(spec.pool, HONEST, dtype=np.intp)
    kinds[:spammers] = SPAMMER
    kinds[spammers : spammers + biased] = BIASED
    return rng.permutation(kinds)


def _confusion(kind: int, k: int, rng: np.random.Generator) -> FloatArray:
    """One worker's (true × given) matrix.

    Honest: right with a per-class probability in 0.65–0.95 (real workers are better on one class
    than another), wrong labels uniform. Biased: as honest, but a share 0.3–0.6 of answers go to one
    favoured label (the frequent one three times in four). Spammer: one fixed label distribution
    whatever the truth (half always give one label, half answer at random)."""
    if kind == SPAMMER:
        if rng.random() < 0.5:
            row = np.full(k, 1.0 / k)
        else:
            row = np.full(k, 0.02 / max(k - 1, 1))
            row[0 if rng.random() < 0.75 else rng.integers(1, k)] = 0.98
        return np.tile(row, (k, 1))
    right = rng.uniform(0.65, 0.95, size=k)
    matrix = np.tile(((1 - right) / max(k - 1, 1))[:, None], (1, k))
    matrix[np.arange(k), np.arange(k)] = right
    if kind == BIASED:
        favoured = 0 if rng.random() < 0.75 else int(rng.integers(1, k))
        pull = rng.uniform(0.3, 0.6)
        matrix *= 1 - pull
        matrix[:, favoured] += pull
    return matrix


def long_format(crowd: Crowd, used: npt.NDArray[np.bool_]) -> tuple[IntArray, IntArray, IntArray]:
    """The answers marked in ``used`` (items × arrivals) as long format, items in order."""
    items, slots = np.nonzero(used)
    return items.astype(np.intp), crowd.answer_workers[items, slots], crowd.answer_labels[items, slots]
