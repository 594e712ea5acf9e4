"""Who writes an item's label: the agreement rule (the paper's majority with ρ) or the label model.

With the model deciding, the model's label (on the rule's label set) is written, its answer-level
label is the most chosen answer that collapses to it, and an item is kept when that label is one the
rule keeps and the model's posterior reaches ``min_posterior``; the items below it go to an expert.
Pure module: no Django.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from aggregation.label_models import Aggregate, LabelModel
from aggregation.labels import NO_MAJORITY
from aggregation.posterior_decisions import DecisionPosteriors, KnownAnswers
from aggregation.responses import Responses
from aggregation.rules import AgreementRule, RuleOutcome, apply_rule

DECISIONS = ("rule", "model")


def on_rule_labels(answers: Responses, rule: AgreementRule) -> Responses:
    """The answers on the rule's label set (stance: 5 answer labels collapsed to 3)."""
    if rule.collapse is None:
        return answers
    return Responses(
        answers.items,
        answers.workers,
        answers.item_index,
        answers.worker_index,
        rule.collapse.codes(answers.label),
        rule.label_set,
    )


def decide(
    answers: Responses,
    rule: AgreementRule,
    model: LabelModel,
    decision: str,
    min_posterior: float,
    on_rule: Responses | None = None,
    known: KnownAnswers | None = None,
) -> tuple[RuleOutcome, Aggregate, DecisionPosteriors]:
    """Every item's outcome, the label model's fit (on the rule's labels) and the posteriors the
    decision reads (calibrated on ``known``, people's answers, where there are enough), as ``decision``
    ("rule" or "model") writes them: what `aggregate_job` and `aggregate_labels` both do. ``on_rule``:
    the answers on the rule's labels, when the caller has them (and their counts)."""
    outcome = apply_rule(answers, rule)
    fitted = model.fit(on_rule if on_rule is not None else on_rule_labels(answers, rule))
    posteriors = decision_posteriors(fitted, rule, known or KnownAnswers({}))
    if decision == "model":
        outcome = decided_by_model(outcome, fitted.labels, posteriors.of(fitted), min_posterior)
    return outcome, fitted, posteriors


def decision_posteriors(fitted: Aggregate, rule: AgreementRule, known: KnownAnswers) -> DecisionPosteriors:
    """The posteriors that thresholds on this fit read, calibrated on ``known`` where it allows."""
    names = np.asarray(rule.label_set.labels, dtype=object)[fitted.labels]
    return known.posteriors(fitted.items, names, fitted.probabilities.max(axis=1))


def decided_by_model(
    outcome: RuleOutcome,
    model_labels: npt.NDArray[np.intp],
    posterior: npt.NDArray[np.float64],
    min_posterior: float,
) -> RuleOutcome:
    """The rule's outcome with the label model's labels and statuses in place of the majority's."""
    rule = outcome.rule
    keep = np.array(rule.label_set.codes(sorted(rule.keep)), dtype=np.intp)
    kept = np.isin(model_labels, keep) & (posterior >= min_posterior)
    return replace(outcome, labels=model_labels, fine_labels=_answer_labels(outcome, model_labels), kept=kept)


def _answer_labels(outcome: RuleOutcome, decided: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """Per item, the most chosen answer among those that mean the decided label (stance: SUPPORT or
    MILDLY_SUPPORT for SUPPORT); the decided label itself when nobody chose one of them."""
    rule = outcome.rule
    if rule.collapse is None:
        return decided.copy()
    answers = rule.answer_set
    maps_to = np.array([rule.label_set.code(rule.collapse.mapping[name]) for name in answers.labels])
    fine = np.full(len(decided), NO_MAJORITY, dtype=np.intp)
    for i, label in enumerate(decided.tolist()):
        if label == NO_MAJORITY:
            continue
        meaning = np.flatnonzero(maps_to == label)
        counts = outcome.counts[i, meaning]
        if counts.max() > 0:
            fine[i] = meaning[int(np.argmax(counts))]
        else:
            name = rule.label_set.name_of(label)
            fine[i] = answers.code(name) if name in answers.labels else NO_MAJORITY
    return fine
