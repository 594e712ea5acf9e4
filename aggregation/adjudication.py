"""Experts overruling the crowd: the queue of contested items, the final label written to the corpus
(recorded with who and when), and the random sample that measures crowd-vs-expert accuracy."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from aggregation.declared import categorical_rule, declared_rule
from aggregation.labels import LabelSet
from aggregation.models import Adjudication, ItemOutcome, WorkerQuality
from aggregation.posterior_calibration import BULK, stored_decision_posteriors
from aggregation.rules import AgreementRule
from annotation.models import Job, Response
from annotation.task_types import get_task_type
from annotation.task_types.decisions import Decision
from annotation.task_types.rules import MultiLabelRule
from corpus import provenance
from corpus.models import Status
from corpus.provenance import Writer


class AdjudicationError(ValueError):
    """A final label the item's task does not offer, or an item that cannot be adjudicated."""


@dataclass(frozen=True)
class SampleAccuracy:
    """Crowd label vs expert label on a job's adjudicated random sample (the paper: 94% stance)."""

    adjudicated: int
    agreeing: int
    sampled: int

    @property
    def accuracy(self) -> float | None:
        return self.agreeing / self.adjudicated if self.adjudicated else None

    def sentence(self) -> str:
        """In plain words, as the dashboard shows it: "90%: the expert agreed with the crowd on 36 of 40
        adjudicated items (all 40 sampled items adjudicated)."."""
        if not self.sampled:
            return "No random sample drawn yet."
        if self.accuracy is None:
            return f"None of the {self.sampled} sampled items is adjudicated yet."
        done = (
            f"all {self.sampled} sampled items adjudicated"
            if self.adjudicated == self.sampled
            else f"{self.adjudicated} of {self.sampled} sampled items adjudicated"
        )
        return (
            f"{self.accuracy:.0%}: the expert agreed with the crowd on {self.agreeing} of "
            f"{self.adjudicated} adjudicated items ({done})."
        )


def rule_of(job: Job) -> AgreementRule:
    """The rule the job's task type declares; only one-label answers are adjudicated."""
    rule = categorical_rule(job.task_type)
    if rule is None:
        raise AdjudicationError(f"{job.task_type} items are not adjudicated one label at a time")
    return rule


def answer_labels(job: Job) -> LabelSet:
    """The labels an expert chooses from: the workers' own (5-way for stance)."""
    return rule_of(job).answer_set


@dataclass(frozen=True)
class Choices:
    """What an expert chooses from for an item: one label, or any number of them (topics)."""

    labels: tuple[tuple[str, str], ...]  # (value, as shown)
    multiple: bool

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.labels)


def choices(outcome: ItemOutcome) -> Choices:
    """One-label task types: the workers' answer labels; multi-label ones: the list their page offers."""
    if isinstance(declared_rule(outcome.job.task_type), MultiLabelRule):
        field = get_task_type(outcome.job.task_type).fields(outcome.item)[""]
        offered = getattr(field, "choices", ())
        return Choices(tuple((str(value), str(shown)) for value, shown in offered), multiple=True)
    job = outcome.job
    named = tuple((label, job.label_name(label)) for label in answer_labels(job).labels)
    return Choices(named, multiple=False)


@dataclass(frozen=True)
class RatedResponse:
    """One worker's answer to an item, with what aggregation learnt about that worker on the job."""

    worker: str
    label: str
    reliability: float | None
    agreement: float | None
    flags: tuple[str, ...]
    blocked: bool


def rated_responses(outcome: ItemOutcome) -> list[RatedResponse]:
    quality = {q.worker_id: q for q in WorkerQuality.objects.filter(job=outcome.job_id)}
    rated = []
    for response in (
        Response.objects.filter(item=outcome.item_id).select_related("worker").order_by("worker_id")
    ):
        q = quality.get(response.worker_id)
        rated.append(
            RatedResponse(
                str(response.worker),
                response.label,
                q.reliability if q else None,
                q.agreement if q else None,
                tuple(q.flags) if q and q.flags else (),
                response.worker.blocked,
            )
        )
    return rated


def adjudication_refusal(job: Job) -> str:
    """Why the job's items cannot be adjudicated, in a sentence; "" when they can."""
    if declared_rule(job.task_type) is None:
        return (
            f"{get_task_type(job.task_type).name} answers are written text, not labels that are "
            "aggregated, so there is nothing to adjudicate."
        )
    if not ItemOutcome.objects.filter(job=job).exists():
        return "Nothing to adjudicate yet: the job's answers have not been aggregated."
    return ""


def adjudication_queue(job: Job | None = None) -> QuerySet[ItemOutcome]:
    """Outcomes waiting for an expert: contested, or drawn for the sample, and not adjudicated yet."""
    decided = Adjudication.objects.filter(outcome=OuterRef("pk"))
    outcomes = ItemOutcome.objects.filter(Q(contested=True) | Q(sampled=True)).exclude(Exists(decided))
    if job is not None:
        outcomes = outcomes.filter(job=job)
    return outcomes.select_related("item", "job").order_by("job_id", "agreement", "item_id")


def current_label(outcome: ItemOutcome) -> str:
    """The label the corpus holds now: the last expert's, else the crowd's."""
    last = outcome.adjudications.order_by("-decided_at", "-pk").first()
    return last.new_label if last else outcome.fine_label


def next_waiting(job: Job, after: int | None = None) -> ItemOutcome | None:
    """The next outcome waiting for an expert after outcome ``after`` (by id), wrapping around to the
    first; so skipping an item comes back to it once the rest are done."""
    queue = adjudication_queue(job).order_by("pk")
    if after is None:
        return queue.first()
    return queue.filter(pk__gt=after).first() or queue.exclude(pk=after).first()


def accept_model_labels(job: Job, threshold: float, *, user: Any) -> int:
    """Adjudicate every waiting item whose label model's posterior reaches ``threshold`` with the model's
    label, recorded as that person's decision with the threshold in its note; returns how many. The
    posterior is the calibrated one where people's answers allow (aggregation.posterior_decisions)."""
    if not 0.0 < threshold <= 1.0:
        raise AdjudicationError(f"a posterior threshold is in (0, 1], not {threshold}")
    offered = set(answer_labels(job).labels)
    posteriors = stored_decision_posteriors(job)
    waiting = adjudication_queue(job).filter(model_confidence__isnull=False).exclude(model_label="")
    accepted = 0
    for outcome in waiting.order_by("pk"):
        raw = float(outcome.model_confidence or 0.0)
        read = float(posteriors.confidence(np.array([outcome.item_id]), np.array([raw]))[0])
        if outcome.model_label in offered and read >= threshold:
            calibrated = f" (calibrated {read:.3f} on {posteriors.source})" if posteriors.calibration else ""
            note = f"{BULK}: posterior {raw:.3f}{calibrated} ≥ {threshold:g}"
            adjudicate(outcome.pk, outcome.model_label, user=user, note=note)
            accepted += 1
    audit.record(user, AuditEvent.Action.ACCEPTED_MODEL, f"job {job.pk}", threshold=threshold, items=accepted)
    return accepted


def _decision(outcome: ItemOutcome, label: str | Sequence[str]) -> tuple[str, str, bool, tuple[str, ...]]:
    """What the adjudicator's answer means under the job's rule: (label as given, label decided, kept,
    labels chosen — multi-label tasks only)."""
    declared = declared_rule(outcome.job.task_type)
    if isinstance(declared, MultiLabelRule):
        chosen = _chosen_labels(outcome, label)
        joined = declared.separator.join(chosen)
        return joined, joined, bool(chosen), chosen
    rule = rule_of(outcome.job)
    if not isinstance(label, str) or label not in rule.answer_set.labels:
        raise AdjudicationError(f"{label!r} is not one of {list(rule.answer_set.labels)}")
    decided = rule.collapse.mapping[label] if rule.collapse is not None else label
    return label, decided, decided in rule.keep, ()


def adjudicate(outcome_id: int, label: str | Sequence[str], *, user: Any, note: str = "") -> Adjudication:
    """Set an item's final label (for a multi-label task, its labels), write it to the corpus, and
    record who decided, when, and over what."""
    with transaction.atomic():
        outcome = ItemOutcome.objects.select_for_update().select_related("item", "job").get(pk=outcome_id)
        label, decided, kept, chosen = _decision(outcome, label)
        stamp = timezone.now()
        record = Adjudication(
            outcome=outcome,
            job=outcome.job,
            cluster_id=outcome.item.cluster_id,
            crowd_label=outcome.label,
            old_label=current_label(outcome),
            new_label=label,
            decided_label=decided,
            old_status=_status_now(outcome),
            sampled=outcome.sampled,
            new_status=Status.ADJUDICATED if kept else Status.REJECTED,
            note=note,
            decided_by=user,
            decided_at=stamp,
        )
        written = f"adjudicated by {user} at {stamp:%Y-%m-%d %H:%M} UTC"
        _write(outcome, label, decided, kept, chosen, written, user)
        record.save()
        audit.record(
            user,
            AuditEvent.Action.ADJUDICATED,
            f"item {outcome.item.key} of job {outcome.job_id}",
            old=record.old_label,
            new=label,
            note=note,
        )
    return record


def _chosen_labels(outcome: ItemOutcome, label: str | Sequence[str]) -> tuple[str, ...]:
    offered = choices(outcome).values
    chosen = [label] if isinstance(label, str) else list(label)
    unknown = sorted(set(chosen) - set(offered))
    if unknown:
        raise AdjudicationError(f"{unknown} not among the offered labels {list(offered)}")
    return tuple(value for value in offered if value in chosen)  # in the list's order, once each


def _status_now(outcome: ItemOutcome) -> str:
    last = outcome.adjudications.order_by("-decided_at", "-pk").first()
    if last is not None:
        return last.new_status
    held = get_task_type(outcome.job.task_type).corpus_status(outcome.item)
    return outcome.status if held is None else held


def _write(
    outcome: ItemOutcome, label: str, decided: str, kept: bool, labels: tuple[str, ...], rule: str, user: Any
) -> None:
    """The expert's label to the corpus, as the task type's adjudication hook writes it."""
    item = outcome.item
    if item.is_gold:
        return  # gold items check workers; their corpus rows are not the job's to change
    decision = Decision(
        item_id=item.pk,
        label=decided,
        fine_label=label,
        counts=list(outcome.counts),
        agreement=outcome.agreement,
        kept=kept,
        cluster_id=item.cluster_id,
        perspective_id=item.perspective_id,
        evidence_id=item.evidence_id,
        claim_id=item.claim_id,
        labels=labels,
    )
    writer = Writer.person(user, f"adjudication of item {item.key} in job {outcome.job_id}")
    with provenance.writing(writer):
        get_task_type(outcome.job.task_type).write_adjudication(decision, rule)


def draw_sample(job_id: int, size: int, *, seed: int = 0) -> int:
    """Mark a seeded random sample of the job's (non-gold) items for expert checking, up to ``size`` in
    all; drawing again with the same size adds nothing. Returns how many are now sampled."""
    if size < 1:
        raise AdjudicationError("a sample needs at least one item")
    with transaction.atomic():
        outcomes = ItemOutcome.objects.select_for_update().filter(job_id=job_id, item__is_gold=False)
        already = outcomes.filter(sampled=True).count()
        pool = sorted(outcomes.filter(sampled=False).values_list("pk", flat=True))
        chosen = random.Random(f"{seed}-{job_id}").sample(pool, k=min(max(size - already, 0), len(pool)))
        ItemOutcome.objects.filter(pk__in=chosen).update(sampled=True)
    return already + len(chosen)


def sample_accuracy(job: Job) -> SampleAccuracy:
    """The first expert decision on each sampled item, against the crowd label it met."""
    first: dict[int, bool] = {}
    for outcome_id, agrees in _sampled_rows(job):
        first.setdefault(outcome_id, agrees)
    sampled = ItemOutcome.objects.filter(job=job, sampled=True).count()
    return SampleAccuracy(len(first), sum(first.values()), sampled)


def _sampled_rows(job: Job) -> list[tuple[int, bool]]:
    rows = (
        Adjudication.objects.filter(job=job, sampled=True)
        .order_by("decided_at", "pk")
        .values_list("outcome_id", "crowd_label", "decided_label")
    )
    return [(outcome_id, crowd == decided) for outcome_id, crowd, decided in rows]
