"""How far a job's label-model posteriors can be trusted, measured where people know the answer: its
gold items (their known answers) and the items an expert adjudicated (the latest decision on each).

The posteriors are calibrated there as a machine's scores are (aggregation.machines.calibrating:
isotonic, cross-fitted, so no item calibrates itself), and the dashboard shows the ECE as they are and
once calibrated. On simulated crowds the two are close; on real crowd labels the posteriors are often
overconfident, and only the calibrated figure says what a threshold on them can be trusted to.
Items an expert was asked about because the crowd disagreed are harder than the rest: on them the
figures are pessimistic, and a random accuracy sample gives the fairer measure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from django.db.models import Q

from aggregation.declared import declared_rule
from aggregation.models import Adjudication, ItemOutcome
from aggregation.posterior_decisions import DecisionPosteriors, KnownAnswers
from annotation.models import Item, Job
from annotation.task_types import get_task_type
from annotation.task_types.rules import CategoricalRule

TOO_FEW = 10  # cross-fitting needs two items in each of its five folds (aggregation.machines.calibrating)
# The note of an adjudication made by accepting the model's labels in bulk: the model's own label, not
# an answer people know, so it never calibrates the posteriors.
BULK = "model's label accepted in bulk"


@dataclass(frozen=True)
class PosteriorCalibration:
    gold: int  # gold items with a posterior and a known answer
    adjudicated: int  # adjudicated items with a posterior
    ece: float  # of the posteriors as they are (nan with too few items)
    ece_calibrated: float  # once calibrated, cross-fitted (nan with too few items)

    @property
    def items(self) -> int:
        return self.gold + self.adjudicated

    def sentence(self) -> str:
        where = (
            f"{self.items} items whose answer people know ({self.gold} gold, {self.adjudicated} adjudicated)"
        )
        if math.isnan(self.ece):
            return f"not measured: {where}; at least {TOO_FEW} are needed"
        return (
            f"ECE {self.ece:.3f} as they are, {self.ece_calibrated:.3f} once calibrated (isotonic, "
            f"cross-fitted), on {where}"
        )


def known_answers(job: Job) -> dict[str, str]:
    """Item id → the answer people gave it, on the label model's label set: a gold item's known answer,
    else an expert's latest decision."""
    return _known_answers(Q(job=job))


def _known_answers(jobs: Q) -> dict[str, str]:
    """The known answers of the items of the jobs ``jobs`` selects (item ids are unique across jobs), in
    two queries however many jobs."""
    gold = dict(
        ItemOutcome.objects.filter(jobs, item__is_gold=True)
        .exclude(reference_label="")
        .values_list("item_id", "reference_label")
    )
    decided = dict(  # in order of decision, so an item's latest decision is the one kept
        Adjudication.objects.filter(jobs, outcome__item__is_gold=False)
        .exclude(decided_label="")
        .exclude(note__startswith=BULK)
        .order_by("decided_at", "pk")
        .values_list("outcome__item_id", "decided_label")
    )
    return {str(item): label for item, label in {**decided, **gold}.items()}


def job_posterior_calibration(job: Job) -> PosteriorCalibration | None:
    """The calibration of the job's latest posteriors on its items of known answer; None when the job
    has no posteriors or no such item."""
    answers = known_answers(job)
    posteriors = ItemOutcome.objects.filter(job=job, model_confidence__isnull=False).exclude(model_label="")
    rows = list(
        posteriors.filter(item_id__in=[int(item) for item in answers]).values_list(
            "item_id", "item__is_gold", "model_label", "model_confidence"
        )
    )
    if not rows:
        return None
    # Imported here: pandas and scikit-learn, which the dashboard's module must not load for a worker.
    import pandas as pd

    from aggregation.machines.checking import posterior_calibration

    table = pd.DataFrame(
        [(str(item), label, confidence) for item, _, label, confidence in rows],
        columns=["item", "model_label", "confidence"],
    )
    _, ece, calibrated = posterior_calibration(table, answers)
    gold = sum(is_gold for _, is_gold, _, _ in rows)
    return PosteriorCalibration(gold, len(rows) - gold, ece, calibrated)


def known_for_decisions(job: Job) -> KnownAnswers:
    """The answers people know that calibrate the posteriors the job's decisions read: its gold items'
    known answers and its experts' latest decisions (item id → label on the rule's labels), and how the
    label model did where the answer is known in the other jobs of its task type."""
    declared, name = declared_rule(job.task_type), get_task_type(job.task_type).name
    if not isinstance(declared, CategoricalRule):
        return KnownAnswers({}, task_type=name)
    gold = Item.objects.filter(job=job, is_gold=True).values_list("pk", "known_answer")
    own = {
        pk: declared.decided(declared.spell(known)) for pk, known in gold if isinstance(known, str) and known
    }
    adjudicated = (
        Adjudication.objects.filter(job=job, outcome__item__is_gold=False)
        .exclude(decided_label="")
        .exclude(note__startswith=BULK)
        .order_by("decided_at", "pk")
        .values_list("outcome__item_id", "decided_label")
    )
    own = {**dict(adjudicated), **own}  # a gold item's known answer over an expert's
    others = Q(job__task_type=job.task_type) & ~Q(job=job)
    answers = _known_answers(others)
    rows = (
        ItemOutcome.objects.filter(
            others, model_confidence__isnull=False, item_id__in=list(map(int, answers))
        )
        .exclude(model_label="")
        .order_by("job_id", "item_id")
        .values_list("item_id", "model_label", "model_confidence")
    )
    posteriors, right = [], []
    for item, label, confidence in rows:
        posteriors.append(confidence)
        right.append(float(label == answers[str(item)]))
    return KnownAnswers(own, np.array(posteriors, dtype=np.float64), np.array(right), name)


def stored_decision_posteriors(job: Job) -> DecisionPosteriors:
    """What the job's decisions read now, from its latest outcomes' posteriors: the bulk acceptance of the
    model's labels, and what the job's page says of it."""
    rows = list(
        ItemOutcome.objects.filter(job=job, model_confidence__isnull=False)
        .exclude(model_label="")
        .order_by("item_id")
        .values_list("item_id", "model_label", "model_confidence")
    )
    items, labels, raw = (np.array(column) for column in zip(*rows, strict=True)) if rows else ([], [], [])
    return known_for_decisions(job).posteriors(
        np.asarray(items), np.asarray(labels), np.asarray(raw, dtype=float)
    )


def decisions_sentence(job: Job) -> str:
    """What the job's page says the decisions on its posteriors read; "" when it has no posteriors."""
    if not ItemOutcome.objects.filter(job=job, model_confidence__isnull=False).exists():
        return ""
    return stored_decision_posteriors(job).sentence()
