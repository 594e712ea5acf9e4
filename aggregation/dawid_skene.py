"""Dawid & Skene (1979): EM over one confusion matrix per worker, started from the soft majority vote.

Written here rather than taken from crowd-kit because crowd-kit drags in transformers and works
through pandas group-bys; this works on the integer-coded long format through two sparse products per
iteration (``Incidence``), which is what makes 100k labels take milliseconds (``bench/aggregation.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aggregation.label_models import (
    Aggregate,
    FloatArray,
    Incidence,
    decide,
    normalise_log,
    vote_shares,
)
from aggregation.responses import Responses


@dataclass(frozen=True)
class DawidSkene:
    """Dawid–Skene label model.

    ``smoothing`` is a pseudocount added to every confusion cell and class count so that a worker who
    never used a label does not get probability 0 for it (log 0 would veto a class outright), and
    ``diagonal_prior`` more on each worker's right answers: a Dirichlet prior that workers are better
    than chance. Without it, on skewed classes EM takes the rare class for whatever the random
    spammers say (on the grid's 95/5 crowds with 30% spammers: 0.78 against majority's 0.80 and 0.91
    with it). It is 4 (answers' worth): on the crowd grid (3 seeds × 500 items per cell), 95/5 with
    3 workers per item and 15% spammers gives 0.942 with 3 and 0.950 with 4 (always answering the
    frequent class: 0.957); 6 gives 0.955 there but costs on the balanced 100k-label benchmark
    (0.9343 with 3, 0.9341 with 4, 0.9333 with 6; crowd-kit 0.93395).
    Reliability is a worker's expected accuracy, Σ_c π_c θ_w[c, c].

    EM stops once an iteration gains less than ``tol`` log-likelihood per response (crowd-kit's rule,
    on its ELBO): past that point the labels only wander among near-ties, and running on to a tighter
    optimum fits the spammers' noise (on the 100k-label benchmark: 12 iterations and 0.9342, against
    38 iterations and 0.9336 run to 1e-7).
    """

    max_iter: int = 100
    tol: float = 1e-5
    smoothing: float = 1.0
    diagonal_prior: float = 4.0
    name: str = "dawid_skene"

    def fit(self, responses: Responses) -> Aggregate:
        incidence = Incidence.of(responses)
        posteriors = vote_shares(responses)
        log_likelihood = float("-inf")
        iterations, converged = 0, False
        priors, confusion = self._maximise(incidence, posteriors)
        for iterations in range(1, self.max_iter + 1):  # noqa: B007 — the count is reported
            posteriors, current = self._expect(incidence, priors, confusion)
            priors, confusion = self._maximise(incidence, posteriors)
            if current - log_likelihood < self.tol * len(responses):
                log_likelihood, converged = current, True
                break
            log_likelihood = current
        reliability = np.einsum("c,wcc->w", priors, confusion)
        return Aggregate(
            model=self.name,
            items=responses.items,
            workers=responses.workers,
            label_set=responses.label_set,
            labels=decide(posteriors),
            probabilities=posteriors,
            worker_reliability=reliability,
            iterations=iterations,
            converged=converged,
            log_likelihood=log_likelihood,
            worker_confusion=confusion,
            class_prior=priors,
            prevalence="estimated",
        )

    def _maximise(self, incidence: Incidence, posteriors: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Class priors and per-worker confusion θ[w, true, given] from the current posteriors."""
        k = posteriors.shape[1]
        confusion = incidence.per_cell(posteriors).transpose(0, 2, 1) + self.smoothing
        confusion[:, np.arange(k), np.arange(k)] += self.diagonal_prior
        confusion /= confusion.sum(axis=2, keepdims=True)
        priors = posteriors.sum(axis=0) + self.smoothing
        return priors / priors.sum(), confusion

    def _expect(
        self, incidence: Incidence, priors: FloatArray, confusion: FloatArray
    ) -> tuple[FloatArray, float]:
        # Row w·K + l holds log θ[w, c, l] for every true class c.
        per_cell = np.log(confusion).transpose(0, 2, 1).reshape(-1, confusion.shape[1])
        return normalise_log(np.log(priors) + incidence.per_item(per_cell))

    def log_likelihood_trace(self, responses: Responses, steps: int) -> list[float]:
        """The data log-likelihood after each of ``steps`` EM rounds (EM never lowers it)."""
        incidence = Incidence.of(responses)
        posteriors = vote_shares(responses)
        trace = []
        for _ in range(steps):
            priors, confusion = self._maximise(incidence, posteriors)
            posteriors, current = self._expect(incidence, priors, confusion)
            trace.append(current)
        return trace
