"""MACE (Hovy et al., NAACL 2013): each worker either knows the true label (with probability θ_w)
or spams from a personal label distribution ξ_w. EM over the integer-coded long format.

Written here for the same reason as ``dawid_skene.py``. Unlike the original tool, which restarts EM
from random points and keeps the best, this starts once from the soft majority vote: the result is
then a pure function of the data, so re-aggregating a job reproduces it exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aggregation.label_models import (
    Aggregate,
    FloatArray,
    decide,
    has_converged,
    normalise_log,
    sum_per_item,
    vote_shares,
)
from aggregation.responses import Responses


@dataclass(frozen=True)
class MACE:
    """MACE label model; a worker's reliability is θ_w, the probability that they are not spamming.

    ``smoothing`` is a pseudocount on both the knowing/spamming counts and the spam distribution.
    The true labels have a uniform prior, as in MACE.
    """

    max_iter: int = 100
    tol: float = 1e-7
    smoothing: float = 0.01
    name: str = "mace"

    def fit(self, responses: Responses) -> Aggregate:
        posteriors = vote_shares(responses)
        # Start as if every response agreeing with the soft majority was a known answer.
        knowing = posteriors[responses.item_index, responses.label]
        theta, spam = self._maximise(responses, knowing)
        log_likelihood = float("-inf")
        iterations, converged = 0, False
        for iterations in range(1, self.max_iter + 1):  # noqa: B007 — the count is reported
            posteriors, current = self._expect(responses, theta, spam)
            knowing = self._knowing(responses, posteriors, theta, spam)
            theta, spam = self._maximise(responses, knowing)
            if has_converged(log_likelihood, current, self.tol):
                log_likelihood, converged = current, True
                break
            log_likelihood = current
        return Aggregate(
            model=self.name,
            items=responses.items,
            workers=responses.workers,
            label_set=responses.label_set,
            labels=decide(posteriors),
            probabilities=posteriors,
            worker_reliability=theta,
            iterations=iterations,
            converged=converged,
            log_likelihood=log_likelihood,
        )

    def _answer_probability(self, responses: Responses, theta: FloatArray, spam: FloatArray) -> FloatArray:
        """P(given label | true class c) for every response and class: θ·[l = c] + (1 − θ)·ξ[l]."""
        w, given = responses.worker_index, responses.label
        spammed = ((1.0 - theta[w]) * spam[w, given])[:, None]
        probability = np.repeat(spammed, responses.n_labels, axis=1)
        probability[np.arange(len(responses)), given] += theta[w]
        return probability

    def _expect(self, responses: Responses, theta: FloatArray, spam: FloatArray) -> tuple[FloatArray, float]:
        per_response = np.log(self._answer_probability(responses, theta, spam))
        log_prior = -np.log(responses.n_labels)
        return normalise_log(log_prior + sum_per_item(responses, per_response))

    def _knowing(
        self, responses: Responses, posteriors: FloatArray, theta: FloatArray, spam: FloatArray
    ) -> FloatArray:
        """E[worker knew the answer] per response: T[i, l]·θ / (θ + (1 − θ)·ξ[l])."""
        w, given = responses.worker_index, responses.label
        matched = theta[w] + (1.0 - theta[w]) * spam[w, given]
        return posteriors[responses.item_index, given] * theta[w] / matched

    def _maximise(self, responses: Responses, knowing: FloatArray) -> tuple[FloatArray, FloatArray]:
        w, k = responses.worker_index, responses.n_labels
        answered = responses.responses_per_worker()
        known = np.bincount(w, weights=knowing, minlength=responses.n_workers)
        theta = (known + self.smoothing) / (answered + 2 * self.smoothing)
        cell = w * k + responses.label
        spammed = np.bincount(cell, weights=1.0 - knowing, minlength=responses.n_workers * k)
        spam = spammed.reshape(responses.n_workers, k) + self.smoothing
        return theta, spam / spam.sum(axis=1, keepdims=True)
