"""MACE (Hovy et al., NAACL 2013): each worker either knows the true label (with probability θ_w)
or spams from a personal label distribution ξ_w. Integer-coded long format, vectorised.

Trained as the reference implementation trains it: variational Bayes with a Beta(α, β) prior on
knowing vs spamming and a symmetric Dirichlet prior on each worker's spam strategy, from several
starts, keeping the one with the best log-likelihood. The first start is the soft majority vote and
the others are seeded random points, so fitting is still a pure function of the data and the seed:
re-aggregating a job reproduces it exactly. Written here for the same reason as ``dawid_skene.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

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
class Fit:
    """One start's end point: the (unnormalised, variational) weights of knowing and spamming per
    worker, the spam strategies, the item posteriors, and how the run ended."""

    know: FloatArray
    spam: FloatArray
    strategy: FloatArray
    posteriors: FloatArray
    log_likelihood: float
    iterations: int
    converged: bool

    @property
    def reliability(self) -> FloatArray:
        """θ_w: the share of a worker's answers that are known rather than spammed."""
        return self.know / (self.know + self.spam)


@dataclass(frozen=True)
class MACE:
    """MACE label model; a worker's reliability is θ_w, the probability that they are not spamming.

    ``alpha``/``beta`` are the Beta prior on knowing/spamming and ``strategy_prior`` the symmetric
    Dirichlet on the spam strategy (the reference implementation's defaults: 0.5, 0.5, 10).
    ``restarts`` starts each run ``burn_in`` iterations (the reference's 50); the one with the best
    log-likelihood then runs on to convergence (its log-likelihood changes by at most ``tol``,
    relatively), within ``max_iter`` in all. Whether it converged is reported on the result.
    """

    max_iter: int = 500
    burn_in: int = 50
    tol: float = 1e-7
    alpha: float = 0.5
    beta: float = 0.5
    strategy_prior: float = 10.0
    restarts: int = 10
    seed: int = 0
    name: str = "mace"

    def fit(self, responses: Responses) -> Aggregate:
        incidence = Incidence.of(responses)
        answered = incidence.responses_per_cell()
        best: Fit | None = None
        for start in range(max(1, self.restarts)):
            know, spam, strategy = self._start(start, responses, incidence, answered)
            fitted = self._run(incidence, answered, know, spam, strategy, min(self.burn_in, self.max_iter))
            if best is None or fitted.log_likelihood > best.log_likelihood:
                best = fitted
        assert best is not None
        if not best.converged and best.iterations < self.max_iter:
            more = self._run(
                incidence, answered, best.know, best.spam, best.strategy, self.max_iter - best.iterations
            )
            best = Fit(more.know, more.spam, more.strategy, more.posteriors, more.log_likelihood,
                       best.iterations + more.iterations, more.converged)  # fmt: skip
        return Aggregate(
            model=self.name,
            items=responses.items,
            workers=responses.workers,
            label_set=responses.label_set,
            labels=decide(best.posteriors),
            probabilities=best.posteriors,
            worker_reliability=best.reliability,
            iterations=best.iterations,
            converged=best.converged,
            log_likelihood=best.log_likelihood,
        )

    def _start(
        self, start: int, responses: Responses, incidence: Incidence, answered: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Start 0: as if every answer agreeing with the soft majority vote was known. Others: a
        seeded random point (θ in [0.3, 0.9], strategies near uniform)."""
        if start == 0:
            posteriors = vote_shares(responses)
            return self._maximise(incidence, answered, posteriors, np.ones_like(answered))
        rng = np.random.default_rng([self.seed, start])
        n_workers, k = answered.shape
        theta = np.asarray(rng.uniform(0.3, 0.9, size=n_workers), dtype=np.float64)
        strategy = np.asarray(rng.uniform(1.0, 1.5, size=(n_workers, k)), dtype=np.float64)
        return theta, 1.0 - theta, strategy / strategy.sum(axis=1, keepdims=True)

    def _run(
        self,
        incidence: Incidence,
        answered: FloatArray,
        know: FloatArray,
        spam: FloatArray,
        strategy: FloatArray,
        max_iter: int,
    ) -> Fit:
        log_likelihood = float("-inf")
        iterations, converged = 0, False
        posteriors, current = self._expect(incidence, know, spam, strategy)
        for iterations in range(1, max_iter + 1):  # noqa: B007 — the count is reported
            share = self._knowing_share(know, spam, strategy)
            know, spam, strategy = self._maximise(incidence, answered, posteriors, share)
            log_likelihood = current
            posteriors, current = self._expect(incidence, know, spam, strategy)
            if has_converged(log_likelihood, current, self.tol):
                converged = True
                break
        return Fit(know, spam, strategy, posteriors, current, iterations, converged)

    @staticmethod
    def _expect(
        incidence: Incidence, know: FloatArray, spam: FloatArray, strategy: FloatArray
    ) -> tuple[FloatArray, float]:
        """Posteriors from P(given l | true c) ∝ know·[l = c] + spam·ξ[l], tabulated per (worker, l, c);
        the true labels have MACE's uniform prior."""
        k = incidence.n_labels
        answer = np.repeat((spam[:, None] * strategy)[:, :, None], k, axis=2)
        answer[:, np.arange(k), np.arange(k)] += know[:, None]
        return normalise_log(-np.log(k) + incidence.per_item(np.log(answer).reshape(-1, k)))

    @staticmethod
    def _knowing_share(know: FloatArray, spam: FloatArray, strategy: FloatArray) -> FloatArray:
        """Per (worker, given label): P(knew | the answer matches the truth)."""
        return know[:, None] / (know[:, None] + spam[:, None] * strategy)

    def _maximise(
        self, incidence: Incidence, answered: FloatArray, posteriors: FloatArray, knowing_share: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Variational M-step from the expected knowing and spamming counts.

        A response with label l is known with expectation T[i, l]·share[w, l]; summed per cell that is
        share[w, l] times the cell's total posterior mass on l. Each weight is exp(E[log p]) under the
        Beta/Dirichlet posterior: exp(ψ(count + prior) − ψ(total + priors)).
        """
        k = incidence.n_labels
        on_given = incidence.per_cell(posteriors)[:, np.arange(k), np.arange(k)]
        known = knowing_share * on_given
        spammed = np.maximum(answered - known, 0.0)
        known_total, spammed_total = known.sum(axis=1), spammed.sum(axis=1)
        norm = digamma(known_total + spammed_total + self.alpha + self.beta)
        know = np.exp(digamma(known_total + self.alpha) - norm)
        spam = np.exp(digamma(spammed_total + self.beta) - norm)
        strategy = np.exp(
            digamma(spammed + self.strategy_prior) - digamma(spammed_total + k * self.strategy_prior)[:, None]
        )
        return know, spam, strategy
