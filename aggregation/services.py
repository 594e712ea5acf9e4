"""Aggregating a job: long-format rows → the pure core → outcomes, worker quality and the corpus, in one
transaction per job. Adjudication and expert trimming live beside this in ``adjudication.py`` and
``trimming.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection, transaction

from aggregation.agreement import fleiss_kappa, krippendorff_alpha, rho, worker_agreement_with_majority
from aggregation.copying_outcomes import first_run_items
from aggregation.deciding import decide, on_rule_labels
from aggregation.declared import declared_rule
from aggregation.label_models import Aggregate, MajorityVote
from aggregation.labels import NO_MAJORITY_LABEL, LabelSetError
from aggregation.models import AggregationRun, ItemOutcome, RunState, RunTrigger
from aggregation.outcome_columns import (
    OutcomeColumns,
    decisions_to_write_back,
    outcome_columns,
    reference_codes,
)
from aggregation.policy import AggregationPolicy, PolicyError
from aggregation.posterior_calibration import known_for_decisions
from aggregation.quality import record_worker_quality
from aggregation.reading import job_responses
from aggregation.responses import Responses, ResponsesError
from aggregation.rules import AgreementRule
from aggregation.storing import store_outcomes
from aggregation.topics import assign_topics, topic_label_set
from aggregation.write_back import write_back
from annotation.models import Item, Job
from annotation.task_types import get_task_type
from annotation.task_types.base import TaskType, TaskTypeError
from annotation.task_types.decisions import Decision
from annotation.task_types.rules import CategoricalRule, MultiLabelRule
from annotation.work.records import gold_accuracy, long_format
from config.progress import QUIET, Progress

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
    changed_items: int
    # What the write-back did to corpus rows others wrote last: {"rewrote": {...}, "kept": {...}}.
    corpus_writes: dict[str, dict[str, int]]

    @classmethod
    def of(cls, run: AggregationRun) -> AggregationReport:
        return cls(
            run.pk,
            run.job_id,
            run.task_type,
            run.rule,
            run.items,
            run.kept,
            run.rejected,
            run.no_majority,
            run.adjudicated,
            run.fleiss_kappa,
            run.krippendorff_alpha,
            run.flagged_workers,
            run.changed_items,
            run.corpus_writes,
        )


def has_aggregation(task_type: str) -> bool:
    """Whether jobs of this task type are aggregated (free-text writing jobs are not)."""
    try:
        return declared_rule(task_type) is not None
    except TaskTypeError:
        return False


def current_policy(job: Job) -> AggregationPolicy:
    """The policy of the job's last successful run, or the defaults: re-runs decide as before."""
    last = job.aggregation_runs.filter(state=RunState.DONE).order_by("-created", "-pk").first()
    return AggregationPolicy.from_mapping(last.policy) if last else AggregationPolicy()


def _record_run(job: Job, trigger: str, user: Any, **fields: Any) -> AggregationRun:
    """A run's row: who started it, why, and the library versions it ran with."""
    return AggregationRun.objects.create(
        job=job,
        trigger=trigger,
        task_type=job.task_type,
        versions=library_versions(),
        started_by=user,
        **fields,
    )


def aggregate_job(
    job_id: int,
    *,
    overrides: Mapping[str, Any] | None = None,
    trigger: str = RunTrigger.MANUAL,
    user: Any = None,
    progress: Progress = QUIET,
    once: bool = False,
) -> AggregationReport:
    """Aggregate a job's responses and write the results back. Running it again gives the same corpus.

    `once`: unless the job already has a done run since it completed, whose report is returned then.
    The completion task, the pipeline and its aggregate step all ask this way, so however many
    Celery workers deliver them, a completed job is aggregated once (decided under the job's lock)."""
    job = Job.objects.get(pk=job_id)
    try:
        policy = current_policy(job).merged(overrides)
        task_type = get_task_type(job.task_type)
        with transaction.atomic():
            job = Job.objects.select_for_update().get(pk=job.pk)  # one aggregation of a job at a time
            done = _done_since_completion(job) if once else None
            if done is not None:
                return AggregationReport.of(done)
            run = _record_run(job, trigger, user, policy=policy.as_dict(), label_model=policy.label_model)
            _aggregate(job, run, policy, task_type, progress)
    except (ResponsesError, LabelSetError, PolicyError, TaskTypeError) as error:
        _record_run(job, trigger, user, state=RunState.FAILED, error=str(error))
        raise AggregationError(f"job {job.pk} ({job.task_type}): {error}") from error
    return AggregationReport.of(run)


def _aggregate(
    job: Job, run: AggregationRun, policy: AggregationPolicy, task_type: TaskType, progress: Progress
) -> None:
    """The run by the task type's declared rule: categorical labels or a multi-label choice."""
    declared = task_type.aggregation
    if isinstance(declared, MultiLabelRule):
        _aggregate_multilabel(job, run, policy, task_type, declared)
    elif isinstance(declared, CategoricalRule):
        _aggregate_categorical(job, run, policy, task_type, declared, progress)
    else:
        raise LabelSetError(f"task type {job.task_type!r} has no aggregation (nothing categorical to decide)")


def _done_since_completion(job: Job) -> AggregationRun | None:
    runs = job.aggregation_runs.filter(state=RunState.DONE)
    if job.completed_at is not None:
        runs = runs.filter(created__gte=job.completed_at)
    return runs.order_by("-pk").first()


def dropped_workers(job: Job, policy: AggregationPolicy) -> list[int]:
    """The workers whose answers the policy leaves out (besides rejected and unconfirmed work)."""
    if policy.drop_workers == "blocked":
        return list(job.responses.filter(worker__blocked=True).values_list("worker_id", flat=True).distinct())
    if policy.drop_workers == "flagged":
        return list(job.worker_qualities.filter(flagged=True).values_list("worker_id", flat=True))
    return []


def library_versions() -> dict[str, str]:
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "missing"
    return found


def _aggregate_categorical(
    job: Job,
    run: AggregationRun,
    policy: AggregationPolicy,
    task_type: TaskType,
    declared: CategoricalRule,
    progress: Progress,
) -> None:
    rule = policy.applied_to(AgreementRule.declared(declared))
    answers = _read_responses(job, policy, declared, rule, progress)
    decided, model = on_rule_labels(answers, rule), policy.model()
    # The fit needs no database: it runs on the other core while the server finds what the writes
    # need (the items' reference answers, a first run's item ids, the gold answers' figures), and the
    # agreement figures (majority vote's worker figures among them: its items need none) while it
    # writes the outcomes (numpy and psycopg let go of the GIL).
    deferred = isinstance(model, MajorityVote)  # its workers' figures wait: MajorityVote.with_workers
    with ThreadPoolExecutor(1) as pool:
        with progress.stage(f"fit {policy.label_model}", unit="iterations") as done:
            fit_with = MajorityVote(workers=False) if deferred else model
            known = known_for_decisions(job)
            fitting = pool.submit(
                decide, answers, rule, fit_with, policy.decide, policy.min_posterior, decided, known
            )
            reference = reference_codes(job, answers.items, task_type, declared, rule)
            job_items, gold = first_run_items(job), gold_accuracy(job)
            outcome, fitted, posteriors = fitting.result()
            done(fitted.iterations)
        figures = pool.submit(_agreement, decided, fitted, deferred)
        min_posterior = policy.min_posterior if policy.decide == "model" else None
        with progress.stage("write the outcomes and the corpus", unit="items") as done:
            columns = outcome_columns(outcome, fitted, reference, min_posterior, posteriors.of(fitted))
            adjudicated = _store_outcomes(job, run, columns, task_type, job_items)
            done(len(outcome.items))
        agreement, fitted = figures.result()
    _record_agreement(run, rule, answers, agreement)
    _record_quality(job, run, policy, decided, gold, agreement, fitted, progress)
    summary = outcome.summary()
    run.kept, run.rejected, run.no_majority = summary["kept"], summary["rejected"], summary["no_majority"]
    run.adjudicated = len(adjudicated)
    run.save()


def _record_quality(
    job: Job,
    run: AggregationRun,
    policy: AggregationPolicy,
    decided: Responses,
    gold: Mapping[int, tuple[int, int]],
    agreement: _Agreement,
    fitted: Aggregate,
    progress: Progress,
) -> None:
    with progress.stage("record worker quality", unit="workers") as done:
        run.flagged_workers = record_worker_quality(
            job,
            run,
            policy,
            decided,
            gold,
            agreement.of_workers,
            fitted.worker_reliability,
            fitted.worker_confusion,
        )
        done(decided.n_workers)


def _read_responses(
    job: Job, policy: AggregationPolicy, declared: CategoricalRule, rule: AgreementRule, progress: Progress
) -> Responses:
    with progress.stage("read the responses", unit="responses") as done:
        # Begun by aggregate_job, the transaction holds nothing but the job's lock and the run, so
        # other connections on its snapshot read the responses as it would.
        shared = len(connection.atomic_blocks) == 1
        answers = job_responses(
            job, dropped_workers(job, policy), declared.spell, rule.answer_set, shared=shared
        )
        done(len(answers))
    return answers


@dataclass(frozen=True)
class _Agreement:
    """A run's agreement figures over the rule's labels; ``of_workers``: each worker's with the others'
    majority."""

    mean_rho: float | None
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    of_workers: np.ndarray


def _agreement(decided: Responses, fitted: Aggregate, deferred: bool) -> tuple[_Agreement, Aggregate]:
    """The figures, and the fit with majority vote's worker figures added when ``deferred`` (its
    reliability is each worker's agreement with the others' majority: found once)."""
    if deferred:
        fitted = MajorityVote.with_workers(fitted, decided)
        of_workers = fitted.worker_reliability
    else:
        of_workers = worker_agreement_with_majority(decided)
    counts = decided.counts()
    figures = _Agreement(
        _finite(float(np.nanmean(rho(counts)))),
        _finite(fleiss_kappa(counts)),
        _finite(krippendorff_alpha(counts)),
        of_workers,
    )
    return figures, fitted


def _record_agreement(
    run: AggregationRun, rule: AgreementRule, answers: Responses, agreement: _Agreement
) -> None:
    """The run's rule, sizes and agreement figures."""
    run.rule = rule.describe()
    run.items, run.responses, run.workers = answers.n_items, len(answers), answers.n_workers
    run.mean_rho, run.fleiss_kappa = agreement.mean_rho, agreement.fleiss_kappa
    run.krippendorff_alpha = agreement.krippendorff_alpha


def _store_outcomes(
    job: Job,
    run: AggregationRun,
    columns: OutcomeColumns,
    task_type: TaskType,
    job_items: npt.NDArray[np.int64] | None,
) -> set[int]:
    """Item outcomes (set-wise; adjudicated rows stay, so adjudications stay attached) and the corpus
    write-back through the task type's hook. Returns the items left as an expert adjudicated them.
    ``job_items``: as ``first_run_items`` read them."""
    stored = store_outcomes(job, run, columns, job_items)
    run.changed_items = stored.changed
    decisions = decisions_to_write_back(columns, job, stored.adjudicated)
    write_back(job, run, task_type, decisions, columns.rule.describe())
    return stored.adjudicated


def _aggregate_multilabel(
    job: Job, run: AggregationRun, policy: AggregationPolicy, task_type: TaskType, declared: MultiLabelRule
) -> None:
    """Labels (topics) kept per item by share of raters, written back by the task type's hook; no ρ."""
    rule = policy.shares_rule(declared)
    rows = list(long_format(job, exclude_workers=dropped_workers(job, policy)))
    raters: dict[int, int] = {}
    tags: list[tuple[int, int, str]] = []
    for item, worker, label in rows:
        raters[item] = raters.get(item, 0) + 1
        tags.extend((item, worker, chosen) for chosen in declared.split(label))
    if not tags:
        raise ResponsesError("the job has no topic tags yet")
    slugs = sorted({slug for _, _, slug in tags})
    columns = list(zip(*tags, strict=True))
    kept = assign_topics(columns[0], columns[1], columns[2], topic_label_set(slugs), rule, raters=raters)
    claims = dict(Item.objects.filter(job=job, pk__in=list(kept)).values_list("pk", "claim_id"))
    # Only the job's items get an outcome: the database checks no outcome's item (see ItemOutcome).
    decisions = [
        _multilabel_decision(declared, item, chosen, claims[item])
        for item, chosen in kept.items()
        if item in claims
    ]
    _store_multilabel_outcomes(job, run, decisions)
    write_back(job, run, task_type, decisions, rule.describe())
    run.rule = rule.describe()
    run.items, run.responses, run.workers = len(kept), len(rows), len({w for _, w, _ in rows})
    run.kept = sum(1 for chosen in kept.values() if chosen)
    run.rejected = run.no_majority = len(kept) - run.kept
    run.save()


def _multilabel_decision(rule: MultiLabelRule, item: int, chosen: list[str], claim: int | None) -> Decision:
    joined = rule.separator.join(chosen)
    return Decision(
        item_id=item,
        label=joined or NO_MAJORITY_LABEL,
        fine_label=joined,
        counts=[],
        agreement=None,
        kept=bool(chosen),
        claim_id=claim,
        labels=tuple(chosen),
    )


def _store_multilabel_outcomes(job: Job, run: AggregationRun, decisions: list[Decision]) -> None:
    existing = {o.item_id: o for o in ItemOutcome.objects.filter(job=job)}
    before = {pk: (o.label, o.status) for pk, o in existing.items()}
    changed = []
    for decision in decisions:
        record = existing.get(decision.item_id) or ItemOutcome(item_id=decision.item_id, job=job)
        record.run, record.label, record.fine_label = run, decision.label, decision.fine_label
        record.status, record.counts = ("kept" if decision.kept else "rejected"), []
        changed.append(record)
    ItemOutcome.objects.bulk_update(
        [r for r in changed if r.item_id in existing], ["run", "label", "fine_label", "status", "counts"]
    )
    ItemOutcome.objects.bulk_create([r for r in changed if r.item_id not in existing])
    run.changed_items = _changed(before, changed)


def _changed(before: Mapping[int, tuple[str, str]], outcomes: list[ItemOutcome]) -> int:
    """How many items this run wrote differently from the last one (label or status)."""
    return sum(1 for o in outcomes if o.item_id in before and before[o.item_id] != (o.label, o.status))


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
