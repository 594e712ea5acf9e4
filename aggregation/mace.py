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
    Incidence,
    decide,
    has_converged,
    normalise_log,
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
        incidence = Incidence.of(responses)
        answered = incidence.responses_per_cell()
        posteriors = vote_shares(responses)
        # Start as if every response agreeing with the soft majority was a known answer.
        theta, spam = self._maximise(incidence, answered, posteriors, np.ones_like(answered))
        log_likelihood = float("-inf")
        iterations, converged = 0, False
        for iterations in range(1, self.max_iter + 1):  # noqa: B007 — the count is reported
            posteriors, current = self._expect(incidence, theta, spam)
            theta, spam = self._maximise(incidence, answered, posteriors, self._knowing_share(theta, spam))
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

    def _expect(self, incidence: Incidence, theta: FloatArray, spam: FloatArray) -> tuple[FloatArray, float]:
        """Posteriors from P(given l | true c) = θ·[l = c] + (1 − θ)·ξ[l], tabulated per (worker, l, c)."""
        k = incidence.n_labels
        answer = np.repeat(((1.0 - theta)[:, None] * spam)[:, :, None], k, axis=2)
        answer[:, np.arange(k), np.arange(k)] += theta[:, None]
        log_prior = -np.log(k)
        return normalise_log(log_prior + incidence.per_item(np.log(answer).reshape(-1, k)))

    @staticmethod
    def _knowing_share(theta: FloatArray, spam: FloatArray) -> FloatArray:
        """Per (worker, given label): P(knew | answer matches the truth) = θ / (θ + (1 − θ)·ξ[l])."""
        return theta[:, None] / (theta[:, None] + (1.0 - theta[:, None]) * spam)

    def _maximise(
        self, incidence: Incidence, answered: FloatArray, posteriors: FloatArray, knowing_share: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """θ and ξ from expected knowing/spamming counts.

        A response with label l is known with expectation T[i, l]·share[w, l]; summed per cell that is
        share[w, l] times the cell's total posterior mass on l.
        """
        k = incidence.n_labels
        on_given = incidence.per_cell(posteriors)[:, np.arange(k), np.arange(k)]
        known = knowing_share * on_given
        theta = (known.sum(axis=1) + self.smoothing) / (answered.sum(axis=1) + 2 * self.smoothing)
        spam = answered - known + self.smoothing
        return theta, spam / spam.sum(axis=1, keepdims=True)
