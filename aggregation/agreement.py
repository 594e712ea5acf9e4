"""Agreement over count matrices: per-item ρ, majority with ties, Fleiss' κ, Krippendorff's α, and
each worker's agreement with the majority.

A count matrix has one row per item and one column per label (``Responses.counts()``). Everything
here is vectorised over items so that a million responses take well under a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import krippendorff
import numpy as np
import numpy.typing as npt

from aggregation.labels import NO_MAJORITY
from aggregation.responses import Responses, SingleRaterError
from aggregation.rowwise import row_argmax, row_max, row_sum

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def _as_counts(counts: npt.ArrayLike) -> npt.NDArray[np.int64]:
    matrix = np.asarray(counts, dtype=np.int64)
    if matrix.ndim != 2:
        raise ValueError(f"a count matrix is (items × labels); got shape {matrix.shape}")
    return matrix


def rho(counts: npt.ArrayLike) -> FloatArray:
    """Per-item agreement ρ = Σ_j n_j(n_j − 1) / (n(n − 1)) (PERSPECTRUM appendix A.2).

    ρ is the share of rater–rater pairs that agree. It is 1 when all raters agree and 0 when no two
    do (every n_j ≤ 1 — the paper's "uniform" edge case holds only then: with every n_j = m > 1 it is
    (m − 1)/(n − 1)). With fewer than two ratings there is no pair, so ρ is NaN, never a guess.
    """
    matrix = _as_counts(counts)
    n = row_sum(matrix)
    pairs = n * (n - 1)
    agreeing = row_sum(matrix * (matrix - 1))
    result = np.full(matrix.shape[0], np.nan)
    np.divide(agreeing, pairs, out=result, where=pairs > 0)
    return result


def majority(counts: npt.ArrayLike) -> IntArray:
    """Per item, the code of the most frequent label, or NO_MAJORITY (−1) when the top count is tied.

    This is a plurality with ties broken by nobody: 2–1–1 elects the 2, 2–2–1 elects no one. Items
    with no ratings at all have no majority either.
    """
    matrix = _as_counts(counts)
    if matrix.shape[1] == 0:
        return np.full(matrix.shape[0], NO_MAJORITY, dtype=np.intp)
    top = row_max(matrix)
    winners = row_sum(matrix == top[:, None])
    labels = row_argmax(matrix)
    labels[(winners != 1) | (top == 0)] = NO_MAJORITY
    return labels


def fleiss_kappa(counts: npt.ArrayLike) -> float:
    """Fleiss' κ (Fleiss 1971) over items with at least two ratings.

    P̄ is the mean per-item ρ and P_e = Σ_j p_j², with p_j each label's share of all ratings. With an
    equal number of ratings per item this is Fleiss' formula exactly; with unequal numbers it is the
    usual generalisation (each item's ρ weighted equally, p_j pooled over ratings).
    """
    matrix = _as_counts(counts)
    rated = matrix[row_sum(matrix) >= 2]
    if rated.shape[0] == 0:
        raise SingleRaterError("Fleiss' κ needs at least one item with two ratings")
    observed = float(np.mean(rho(rated)))
    shares = rated.sum(axis=0) / rated.sum()
    expected = float(np.sum(shares**2))
    if expected == 1.0:
        # Every rating used one label: observed agreement is perfect and chance agreement is too.
        return float("nan")
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha(counts: npt.ArrayLike) -> float:
    """Nominal Krippendorff's α from a count matrix, computed by the ``krippendorff`` package."""
    matrix = _as_counts(counts)
    rated = matrix[row_sum(matrix) >= 2]
    if rated.shape[0] == 0:
        raise SingleRaterError("Krippendorff's α needs at least one item with two ratings")
    if np.count_nonzero(rated.sum(axis=0)) < 2:
        # The package refuses a single observed value; α is undefined there (no variation to explain).
        return float("nan")
    return float(krippendorff.alpha(value_counts=rated, level_of_measurement="nominal"))


def worker_agreement_with_majority(responses: Responses, *, exclude_self: bool = True) -> FloatArray:
    """For each worker (``responses.workers`` order), the share of their answers equal to the majority.

    With ``exclude_self`` (the default) the majority is that of the *other* raters of the item, so a
    worker's own vote cannot make them agree — with three raters it would otherwise count for a third
    of the majority. Answers on items where the others are tied or absent are not counted; a worker
    with no countable answer gets NaN.
    """
    counts = responses.counts()
    labels = np.arange(counts.shape[1])
    reference = _majority_of_the_others(counts) if exclude_self else majority(counts)[:, None]
    # Per (item, label) given, 0 (not countable), 1 (countable, disagrees) or 2 (agrees): a small
    # table, looked up once a response (a byte each, where finding the state per response made
    # several arrays of eight) and counted per worker in one pass (masking the rows out first copied
    # ten million of them twice).
    table = (reference != NO_MAJORITY).astype(np.int8) + (reference == labels)
    state = table.ravel()[responses.item_index * counts.shape[1] + responses.label]
    cell = responses.worker_index * 3
    cell += state
    tally = np.bincount(cell, minlength=responses.n_workers * 3)
    per_worker_agrees = tally[2::3]
    per_worker_countable = tally[1::3] + per_worker_agrees
    result = np.full(responses.n_workers, np.nan)
    np.divide(per_worker_agrees, per_worker_countable, out=result, where=per_worker_countable > 0)
    return result


def _majority_of_the_others(counts: npt.NDArray[np.int64]) -> IntArray:
    """(items × labels): the majority on the item of the raters other than one who gave that label.
    It depends on the item and the label only, so it is found once per pair rather than once per
    response (ten times fewer rows with ten raters an item). A pair no rater gave is never looked up.
    In one pass over the counts, from the item's top count, its labels there and the runner-up's:
    one vote fewer for a label below the top changes nothing; for the only top label, it stays the
    majority while still ahead of the runner-up; for one of two tied top labels, it elects the other."""
    items, labels = counts.shape
    others = np.full(counts.shape, NO_MAJORITY, dtype=np.intp)
    if labels == 0:
        return others
    top = row_max(counts)
    winners = row_sum(counts == top[:, None])
    first = row_argmax(counts)
    last = labels - 1 - row_argmax(counts[:, ::-1])
    rest = counts.copy()
    rest[np.arange(items), first] = -1
    runner_up = np.maximum(row_max(rest), 0)
    alone = np.flatnonzero(winners == 1)
    others[alone] = first[alone, None]
    still_ahead = runner_up[alone] < top[alone] - 1
    others[alone, first[alone]] = np.where(still_ahead, first[alone], NO_MAJORITY)
    tied = np.flatnonzero(winners == 2)
    others[tied, first[tied]], others[tied, last[tied]] = last[tied], first[tied]
    return others


@dataclass(frozen=True)
class DatasetAgreement:
    """The dataset-level figures a job reports (and a release's datasheet records)."""

    items: int
    ratings: int
    mean_rho: float
    fleiss_kappa: float
    krippendorff_alpha: float


def dataset_agreement(counts: npt.ArrayLike) -> DatasetAgreement:
    """κ, α and mean ρ over the items with at least two ratings."""
    matrix = _as_counts(counts)
    rated = matrix[row_sum(matrix) >= 2]
    return DatasetAgreement(
        items=int(rated.shape[0]),
        ratings=int(rated.sum()),
        mean_rho=float(np.mean(rho(rated))) if rated.shape[0] else float("nan"),
        fleiss_kappa=fleiss_kappa(matrix),
        krippendorff_alpha=krippendorff_alpha(matrix),
    )
