"""A small simulated crowd for label-model tests: honest workers of varying accuracy and spammers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from aggregation.responses import Responses
from tests.aggregation.builtin_rules import STANCE_3


@dataclass(frozen=True)
class Crowd:
    responses: Responses
    truth: npt.NDArray[np.intp]  # per item, in responses.items order
    spammers: npt.NDArray[np.bool_]  # per worker, in responses.workers order
    worker_accuracy: npt.NDArray[np.float64]  # observed, per worker


def simulate(
    n_items: int = 400, n_workers: int = 30, per_item: int = 5, spam_share: float = 0.2, seed: int = 7
) -> Crowd:
    """Honest workers answer the truth with probability 0.65–0.95, spammers always answer label 0."""
    rng = np.random.default_rng(seed)
    k = len(STANCE_3)
    truth = rng.integers(0, k, n_items)
    spammers = np.arange(n_workers) < round(spam_share * n_workers)
    accuracy = rng.uniform(0.65, 0.95, n_workers)
    items = np.repeat(np.arange(n_items), per_item)
    workers = np.concatenate([rng.choice(n_workers, per_item, replace=False) for _ in range(n_items)])
    wrong = (truth[items] + rng.integers(1, k, len(items))) % k
    honest = np.where(rng.random(len(items)) < accuracy[workers], truth[items], wrong)
    labels = np.where(spammers[workers], 0, honest)
    correct = np.bincount(workers, weights=labels == truth[items], minlength=n_workers)
    observed = correct / np.bincount(workers, minlength=n_workers)
    return Crowd(Responses.from_codes(items, workers, labels, STANCE_3), truth, spammers, observed)
