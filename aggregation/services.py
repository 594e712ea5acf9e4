"""Aggregating a job: long-format rows → the pure core → outcomes, worker quality and the corpus, in one
transaction per job. Adjudication and expert trimming live beside this in ``adjudication.py`` and
``trimming.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from django.db import transaction

from aggregation import writeback
from aggregation.agreement import fleiss_kappa, krippendorff_alpha, rho, worker_agreement_with_majority
from aggregation.labels import NO_MAJORITY_LABEL, LabelSetError
from aggregation.models import AggregationRun, ItemOutcome, RunState, RunTrigger
from aggregation.policy import CATEGORICAL_RULES, TOPIC_TASK, AggregationPolicy, PolicyError, contest_reasons
from aggregation.quality import record_worker_quality
from aggregation.responses import Responses, ResponsesError
from aggregation.rules import Comparison, RuleOutcome, apply_rule
from aggregation.topics import TopicRule, assign_topics, topic_label_set
from annotation.models import Item, Job
from annotation.services import long_format

LIBRARIES = ("numpy", "scipy", "krippendorff", "Django")


class AggregationError(RuntimeError):
    """A job that cannot be aggregated (no responses, one rater per item, an unknown task type …)."""


@dataclass(frozen=True)
class AggregationReport:
    """What ``aggregate_job`` did, as printed by the command."""

    run_id: int
    job_id: int
    task_type: str
    rule: str
    items: int
    kept: int
    rejected: int
    no_majority: int
    adjudicated: int
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    flagged_workers: int

    @classmethod
    def of(cls, run: AggregationRun) -> AggregationReport:
        return cls(
            run.pk, run.job_id, run.task_type, run.rule, run.items, run.kept, run.rejected,
            run.no_majority, run.adjudicated, run.fleiss_kappa, run.krippendorff_alpha, run.flagged_workers,
        )  # fmt: skip


def has_aggregation(task_type: str) -> bool:
    """Whether jobs of this task type are aggregated (free-text writing jobs are not)."""
    return task_type in CATEGORICAL_RULES or task_type == TOPIC_TASK


def current_policy(job: Job) -> AggregationPolicy:
    """The policy of the job's last successful run, or the defaults: re-runs decide as before."""
    last = job.aggregation_runs.filter(state=RunState.DONE).order_by("-created", "-pk").first()
    return AggregationPolicy.from_mapping(last.policy) if last else AggregationPolicy()


def aggregate_job(
    job_id: int,
    *,
    overrides: Mapping[str, Any] | None = None,
    trigger: str = RunTrigger.MANUAL,
    user: Any = None,
) -> AggregationReport:
    """Aggregate a job's responses and write the results back. Running it again gives the same corpus."""
    job = Job.objects.get(pk=job_id)
    try:
        policy = current_policy(job).merged(overrides)
        with transaction.atomic():
            Job.objects.select_for_update().get(pk=job.pk)  # one aggregation of a job at a time
            run = AggregationRun.objects.create(
                job=job, trigger=trigger, task_type=job.task_type, policy=policy.as_dict(),
                label_model=policy.label_model, versions=library_versions(), started_by=user,
            )  # fmt: skip
            if job.task_type == TOPIC_TASK:
                _aggregate_topics(job, run, policy)
            else:
                _aggregate_categorical(job, run, policy)
    except (ResponsesError, LabelSetError, PolicyError) as error:
        AggregationRun.objects.create(
            job=job, trigger=trigger, task_type=job.task_type, state=RunState.FAILED, error=str(error),
            versions=library_versions(), started_by=user,
        )  # fmt: skip
        raise AggregationError(f"job {job.pk} ({job.task_type}): {error}") from error
    return AggregationReport.of(run)


def library_versions() -> dict[str, str]:
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "missing"
    return found


def _aggregate_categorical(job: Job, run: AggregationRun, policy: AggregationPolicy) -> None:
    if job.task_type not in CATEGORICAL_RULES:
        raise LabelSetError(f"task type {job.task_type!r} has no aggregation (nothing categorical to decide)")
    rule = policy.rule_for(job.task_type)
    spell = CATEGORICAL_RULES[job.task_type][1]
    rows = list(long_format(job, include_gold=True))
    if not rows:
        raise ResponsesError("the job has no responses yet")
    items, workers, labels = zip(*rows, strict=True)
    answers = Responses.from_columns(items, workers, [spell(label) for label in labels], rule.answer_set)
    decided = answers
    if rule.collapse is not None:
        decided = Responses(
            answers.items, answers.workers, answers.item_index, answers.worker_index,
            rule.collapse.codes(answers.label), rule.label_set,
        )  # fmt: skip
    outcome = apply_rule(answers, rule)
    fitted = policy.model().fit(decided)
    counts = decided.counts()
    run.rule = rule.describe()
    run.items, run.responses, run.workers = answers.n_items, len(answers), answers.n_workers
    run.mean_rho = _finite(float(np.nanmean(rho(counts))))
    run.fleiss_kappa = _finite(fleiss_kappa(counts))
    run.krippendorff_alpha = _finite(krippendorff_alpha(counts))
    adjudicated = _store_outcomes(job, run, outcome, fitted.labels, fitted.probabilities)
    run.flagged_workers = record_worker_quality(
        job, run, policy, decided, worker_agreement_with_majority(decided), fitted.worker_reliability
    )
    summary = outcome.summary()
    run.kept, run.rejected, run.no_majority = summary["kept"], summary["rejected"], summary["no_majority"]
    run.adjudicated = len(adjudicated)
    run.save()


def _store_outcomes(
    job: Job, run: AggregationRun, outcome: RuleOutcome, model_labels: Any, probabilities: Any
) -> set[int]:
    """Item outcomes (kept across runs, so adjudications stay attached) and the corpus write-back.

    Returns the items left as an expert adjudicated them.
    """
    rule = outcome.rule
    info = {row["pk"]: row for row in Item.objects.filter(job=job).values(*ITEM_FIELDS)}
    reference = np.array([_reference_code(info[pk], job.task_type, rule) for pk in outcome.items.tolist()])
    reasons = contest_reasons(rule, outcome.agreement, outcome.labels, model_labels, reference)
    model_names = rule.label_set.names_of(model_labels)
    reference_names = ["" if code < 0 else rule.label_set.name_of(int(code)) for code in reference]
    existing = {o.item_id: o for o in ItemOutcome.objects.filter(job=job)}
    adjudicated = set(
        ItemOutcome.objects.filter(job=job, adjudications__isnull=False).values_list("item_id", flat=True)
    )
    changed, decisions = [], []
    for index, row in enumerate(outcome.rows()):
        record = existing.get(row.item) or ItemOutcome(item_id=row.item, job=job)
        record.run, record.counts, record.agreement, record.status = (
            run,
            row.counts,
            row.agreement,
            row.status,
        )
        record.label, record.fine_label, record.model_label = row.label, row.fine_label, model_names[index]
        record.reasons, record.contested = reasons[index], bool(reasons[index])
        record.model_confidence = float(np.max(probabilities[index]))
        record.reference_label = reference_names[index]
        changed.append(record)
        item = info[row.item]
        if not item["is_gold"] and row.item not in adjudicated:
            decisions.append(_decision(row, item))
    _save_outcomes(job, changed, adjudicated)
    writeback.write_decisions(job.task_type, decisions, rule.describe())
    return adjudicated


ITEM_FIELDS = (
    "pk",
    "is_gold",
    "known_answer",
    "cluster_id",
    "perspective_id",
    "evidence_id",
    "cluster__source_side",
)
OUTCOME_FIELDS = [
    "run", "counts", "label", "fine_label", "agreement", "status", "reasons",
    "model_label", "contested", "model_confidence", "reference_label",
]  # fmt: skip
CRAWLED_SIDE = {"pro": "SUPPORT", "con": "UNDERMINE"}


def _save_outcomes(job: Job, outcomes: list[ItemOutcome], adjudicated: set[int]) -> None:
    """Replace the job's outcomes, keeping the rows that carry adjudications (and every sample mark).

    Deleting and re-creating is much faster than ``bulk_update`` over a dozen fields; the rows experts
    decided on stay, so their adjudications stay attached.
    """
    kept = [outcome for outcome in outcomes if outcome.pk and outcome.item_id in adjudicated]
    ItemOutcome.objects.filter(job=job).exclude(item_id__in=adjudicated).delete()
    ItemOutcome.objects.bulk_update(kept, OUTCOME_FIELDS, batch_size=500)
    fresh = [outcome for outcome in outcomes if outcome.item_id not in adjudicated]
    for outcome in fresh:
        outcome.pk = None
    ItemOutcome.objects.bulk_create(fresh, batch_size=1000)


def _reference_code(item: Mapping[str, Any], task_type: str, rule: Any) -> int:
    """The gold answer on the rule's label set: a gold item's known answer, or a stance pair's crawled
    side (the side the debate site put the point on); −1 when there is none."""
    spell = CATEGORICAL_RULES[task_type][1]
    answer: str | None = None
    if item["is_gold"] and isinstance(item["known_answer"], str):
        answer = spell(item["known_answer"])
        if rule.collapse is not None and answer in rule.collapse.mapping:
            answer = rule.collapse.mapping[answer]
    elif task_type == "stance":
        answer = CRAWLED_SIDE.get(item["cluster__source_side"] or "")
    return rule.label_set.code(answer) if answer in rule.label_set.labels else -1


def _decision(row: Any, item: Mapping[str, Any]) -> writeback.Decision:
    return writeback.Decision(
        item_id=row.item, label=row.label, fine_label=row.fine_label, counts=row.counts,
        agreement=row.agreement, kept=row.status == "kept", cluster_id=item["cluster_id"],
        perspective_id=item["perspective_id"], evidence_id=item["evidence_id"],
    )  # fmt: skip


def _aggregate_topics(job: Job, run: AggregationRun, policy: AggregationPolicy) -> None:
    """Topics kept per claim by share of raters, written to ClaimTopic; no ρ (a multi-label answer)."""
    rule = TopicRule(min_share=policy.topic_min_share, comparison=Comparison.ABOVE)
    rows = list(long_format(job))
    raters: dict[int, int] = {}
    tags: list[tuple[int, int, str]] = []
    for item, worker, label in rows:
        raters[item] = raters.get(item, 0) + 1
        tags.extend((item, worker, slug) for slug in label.split(",") if slug)
    if not tags:
        raise ResponsesError("the job has no topic tags yet")
    slugs = sorted({slug for _, _, slug in tags})
    columns = list(zip(*tags, strict=True))
    kept = assign_topics(columns[0], columns[1], columns[2], topic_label_set(slugs), rule, raters=raters)
    claims = dict(Item.objects.filter(job=job, pk__in=list(kept)).values_list("pk", "claim_id"))
    existing = {o.item_id: o for o in ItemOutcome.objects.filter(job=job)}
    changed = []
    for item, chosen in kept.items():
        record = existing.get(item) or ItemOutcome(item_id=item, job=job)
        record.run, record.label, record.fine_label = (
            run,
            ",".join(chosen) or NO_MAJORITY_LABEL,
            ",".join(chosen),
        )
        record.status, record.counts = ("kept" if chosen else "rejected"), []
        changed.append(record)
    ItemOutcome.objects.bulk_update(
        [r for r in changed if r.pk], ["run", "label", "fine_label", "status", "counts"]
    )
    ItemOutcome.objects.bulk_create([r for r in changed if not r.pk])
    writeback.write_topics({claims[item]: chosen for item, chosen in kept.items() if claims.get(item)})
    run.rule = rule.describe()
    run.items, run.responses, run.workers = len(kept), len(rows), len({w for _, w, _ in rows})
    run.kept = sum(1 for chosen in kept.values() if chosen)
    run.rejected = run.no_majority = len(kept) - run.kept
    run.save()


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
