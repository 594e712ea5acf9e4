"""Adaptive redundancy: ask for another label only where the decision is still open. Pure module.

After Sheng, Provost and Ipeirotis (KDD 2008) and Toloka's dynamic overlap: every item first gets
``min_workers`` labels; after each round the label model is fitted on everything collected so far,
and an item gets one more label only while it is *open*:

- the model's posterior for its label is below ``stop_posterior`` and the labels still to come (up to
  ``max_workers``), each from a typical worker of the crowd, could change the model's label, or
- the job decides by the paper's rule (majority and ρ) and some way the labels still to come could
  fall would change the rule's label or whether the item is kept.

The second half of the first test is what keeps adaptive under 60% of fixed redundancy's labels at
``stop_posterior`` 0.95 (on ``bench adaptive``'s crowd: 0.9600 with 58% of fixed 5's labels, against
0.9610 with 60.3% from the posterior alone; fixed 5: 0.9627): an item at 0.93 with one label left that
no typical answer could overturn gains nothing from that label.

No item gets more than ``max_workers`` labels. ``run_rounds`` replays a policy over labels whose
arrival order is known (simulated crowds, ``replay_labels``): the policy sees a label only when it
asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from aggregation.label_models import Aggregate, IntArray, LabelModel
from aggregation.posterior_decisions import KnownAnswers
from aggregation.responses import Responses
from aggregation.rules import AgreementRule, apply_rule_to_counts
from annotation.redundancy import ADAPTIVE, FIXED, REDUNDANCIES, AdaptiveError, AdaptivePolicy

__all__ = [
    "ADAPTIVE",
    "FIXED",
    "REDUNDANCIES",
    "AdaptiveError",
    "AdaptivePolicy",
    "Replay",
    "fixed_rounds",
    "model_could_change",
    "open_items",
    "rule_could_change",
    "run_rounds",
]


def open_items(
    policy: AdaptivePolicy,
    fitted: Aggregate,
    counts: npt.NDArray[np.int64],
    rule: AgreementRule | None,
    confidence: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.bool_]:
    """Per item (``fitted.items`` order): whether it should get another label under ``policy``.

    ``counts`` are the items' (items × rule labels) counts so far; ``rule`` is given when the paper's
    rule decides, None when the label model does. ``confidence``: what ``stop_posterior`` is compared
    with, the posteriors calibrated where people's answers allow (aggregation.posterior_decisions); the
    raw posteriors by default."""
    given = counts.sum(axis=1)
    left = policy.max_workers - given
    read = fitted.probabilities.max(axis=1) if confidence is None else confidence
    unsure = (read < policy.stop_posterior) & model_could_change(fitted, left)
    if rule is not None:
        unsure |= rule_could_change(counts, rule, policy.max_workers - given)
    return np.asarray(unsure & (given < policy.max_workers), dtype=bool)


def model_could_change(fitted: Aggregate, left: IntArray) -> npt.NDArray[np.bool_]:
    """Per item: whether ``left`` more labels, each drawn from a typical worker of the crowd (the
    workers' confusion matrices averaged: who answers next is unknown), could change the model's label.

    The labels add their log-likelihoods to the item's log posterior, so the most another class c can
    gain on the decided one d is ``left`` times the best single label's log ratio θ[c, l] / θ[d, l];
    the label can change when that reaches the current margin. Without confusion matrices every item
    could change."""
    if fitted.worker_confusion is None:
        return np.asarray(left > 0, dtype=bool)
    typical = np.log(np.clip(fitted.worker_confusion.mean(axis=0), 1e-12, None))
    log_posterior = np.log(np.clip(fitted.probabilities, 1e-300, None))
    decided = log_posterior.argmax(axis=1)
    # gain[d, c]: the most one label can move the log odds of class c over class d.
    gain = (typical[None, :, :] - typical[:, None, :]).max(axis=2)
    margin = log_posterior[np.arange(len(decided)), decided][:, None] - log_posterior
    reachable = margin <= left[:, None] * gain[decided]
    reachable[np.arange(len(decided)), decided] = False
    return np.asarray(reachable.any(axis=1) & (left > 0), dtype=bool)


def rule_could_change(
    counts: npt.NDArray[np.int64], rule: AgreementRule, left: IntArray
) -> npt.NDArray[np.bool_]:
    """Per item: whether some way its ``left`` labels still to come could fall changes the rule's
    label or its kept/rejected status (every composition is tried; few labels are ever left).
    ``counts`` are on the rule's decided labels (stance: 3), so the rule is applied without collapse."""
    rule = replace(rule, collapse=None)
    now = apply_rule_to_counts(np.arange(len(counts)), counts, rule)
    changes = np.zeros(len(counts), dtype=bool)
    for remaining in np.unique(left[left > 0]).tolist():
        rows = np.flatnonzero(left == remaining)
        extra = _compositions(counts.shape[1], int(remaining))
        grown = (counts[rows][:, None, :] + extra[None, :, :]).reshape(-1, counts.shape[1])
        after = apply_rule_to_counts(np.arange(len(grown)), grown, rule)
        labels = after.labels.reshape(len(rows), -1)
        kept = after.kept.reshape(len(rows), -1)
        differs = (labels != now.labels[rows][:, None]) | (kept != now.kept[rows][:, None])
        changes[rows] = differs.any(axis=1)
    return changes


@cache
def _compositions(k: int, n: int) -> npt.NDArray[np.int64]:
    """Every way ``n`` more labels can fall over ``k`` labels, as (ways × k) counts."""
    ways = [
        np.bincount(np.array(chosen, dtype=np.intp), minlength=k)
        for chosen in combinations_with_replacement(range(k), n)
    ]
    return np.array(ways, dtype=np.int64)


@dataclass(frozen=True)
class Replay:
    """What a policy asked for: the answers it used (items × arrivals) and the final fit on them."""

    used: npt.NDArray[np.bool_]
    fitted: Aggregate
    rounds: int

    @property
    def labels_used(self) -> IntArray:
        return np.asarray(self.used.sum(axis=1), dtype=np.intp)


def run_rounds(
    available: IntArray,
    respond: Callable[[npt.NDArray[np.bool_]], Responses],
    model: LabelModel,
    policy: AdaptivePolicy,
    rule: AgreementRule | None = None,
    known: KnownAnswers | None = None,
) -> Replay:
    """Replay ``policy`` over items whose answers arrive in a known order.

    ``available[i]`` is how many answers item i could get; ``respond(used)`` gives the long-format
    responses of the answers marked in ``used`` (items × max answers), with every item present (the
    first round gives each at least one). Each round asks every open item for one more answer.
    ``known``: people's answers to some items (gold), on which ``stop_posterior`` reads the posteriors
    calibrated afresh each round (aggregation.posterior_decisions); without it, the raw ones."""
    n_items, width = len(available), int(available.max())
    used = np.zeros((n_items, width), dtype=bool)
    for slot in range(min(policy.min_workers, width)):
        used[:, slot] = slot < available
    rounds = 1
    while True:
        responses = respond(used)
        fitted = model.fit(responses)
        given = used.sum(axis=1)
        counts = _rule_counts(responses, rule)
        confidence = None if known is None else known.for_fit(fitted).of(fitted)
        asking = open_items(policy, fitted, counts, rule, confidence) & (given < available)
        if not asking.any():
            return Replay(used, fitted, rounds)
        used[np.flatnonzero(asking), given[asking]] = True
        rounds += 1


def _rule_counts(responses: Responses, rule: AgreementRule | None) -> npt.NDArray[np.int64]:
    counts = responses.counts()
    if rule is not None and rule.collapse is not None:
        return rule.collapse.counts(counts)
    return counts


def fixed_rounds(available: IntArray, workers: int) -> npt.NDArray[np.bool_]:
    """The fixed policy's answers: the first ``workers`` of each item (fewer where fewer came)."""
    width = int(available.max())
    slots = np.arange(width)[None, :]
    return (slots < np.minimum(available, workers)[:, None]).astype(bool)
