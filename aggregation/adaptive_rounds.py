"""Adaptive jobs between rounds: which items are still open, their new HITs, and what it all saved.

When a round of an adaptive job completes, the label model is fitted on every counted answer so far
and only the open items (``aggregation.adaptive.open_items``) get one more assignment each, bundled
into new HITs. The new HITs go through the job's own market like the first ones: the cost check
against the job's budget cap first, then the ledger's ``publish_hits``, whose rows make a repeated
call find the same HITs rather than create them twice. A job with nothing open is aggregated.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

from aggregation.adaptive import AdaptivePolicy, open_items
from aggregation.deciding import decision_posteriors, on_rule_labels
from aggregation.declared import declared_rule
from aggregation.posterior_calibration import known_for_decisions
from aggregation.reading import job_responses
from aggregation.rules import AgreementRule
from aggregation.services import current_policy
from annotation.ledger.listings import publish_hits
from annotation.market_interface.registry import get_market
from annotation.models import Hit, HitItem, Item, Job, JobState
from annotation.planning.bundling import Grouped, bundle
from annotation.redundancy import adaptive_policy
from annotation.task_types import get_task_type
from annotation.task_types.rules import CategoricalRule
from annotation.work.cost_checks import check_cost
from annotation.work.job_errors import BudgetError
from annotation.work.records import counted_responses


@dataclass(frozen=True)
class RoundReport:
    """What ``next_round`` did: how many items were open and how many HITs it published for them."""

    job_id: int
    open_items: int
    new_hits: int
    refused: str = ""  # why no new HITs were published though items were open (the budget cap)


def is_adaptive(job: Job) -> bool:
    return adaptive_policy(job.params) is not None


def open_item_ids(job: Job, adaptive: AdaptivePolicy) -> list[int]:
    """The job's non-gold items that should get another label, given every counted answer so far."""
    declared = get_task_type(job.task_type).aggregation
    if not isinstance(declared, CategoricalRule):
        return []
    policy = current_policy(job)
    rule = policy.applied_to(AgreementRule.declared(declared))
    answers = on_rule_labels(job_responses(job, [], declared.spell, rule.answer_set), rule)
    fitted = policy.model().fit(answers)
    counts = answers.counts()
    confidence = decision_posteriors(fitted, rule, known_for_decisions(job)).of(fitted)
    asking = open_items(adaptive, fitted, counts, rule if policy.decide == "rule" else None, confidence)
    chosen = [int(item) for item in answers.items[asking].tolist()]
    return list(Item.objects.filter(pk__in=chosen, is_gold=False).values_list("pk", flat=True))


def next_round(job_id: int) -> RoundReport:
    """Give each open item of a completed adaptive job one more assignment, in new HITs, and publish
    them; a round created but not yet published (a call cut short) is published. Safe to call again:
    a round is claimed under the job's lock, so two calls never create it twice."""
    job = Job.objects.get(pk=job_id)
    adaptive = adaptive_policy(job.params)
    if adaptive is None or declared_rule(job.task_type) is None:
        return RoundReport(job.pk, 0, 0)
    chosen: list[int] = []
    market = get_market(job.market)
    if job.state == JobState.COMPLETE:
        chosen = open_item_ids(job, adaptive)
        if not chosen or not claim_hits(job, chosen, assignments=1):
            return RoundReport(job.pk, len(chosen), 0)
        try:
            check_cost(job, market)
        except BudgetError as error:
            give_back_hits(job)
            return RoundReport(job.pk, len(chosen), 0, refused=str(error))
    return RoundReport(job.pk, len(chosen), publish_pending(job))


def publish_pending(job: Job) -> int:
    """Publish the job's HITs not yet on its market (a round created, or a call cut short); how many."""
    pending = list(job.hits.filter(external_id="").order_by("position"))
    if not pending or job.state not in (JobState.COMPLETE, *JobState.open()):
        return 0
    published = {entry.hit_pk: entry for entry in publish_hits(job, pending)}
    now = timezone.now()
    for hit in pending:
        hit.external_id, hit.published_at = published[hit.pk].external_id, now
    Hit.objects.bulk_update(pending, ["external_id", "published_at"])
    return len(pending)


def claim_hits(job: Job, chosen: list[int], *, assignments: int) -> bool:
    """Under the job's lock: unless another call got there first, new HITs of ``assignments`` each over
    the chosen items (bundled as the first round was), and the job collecting again."""
    groups = dict(Item.objects.filter(pk__in=chosen).values_list("pk", "group"))
    bundles = bundle(
        [Grouped(pk, groups[pk]) for pk in sorted(chosen)], int(job.params.get("groups_per_hit", 1))
    )
    with transaction.atomic():
        locked = Job.objects.select_for_update().get(pk=job.pk)
        if locked.state != JobState.COMPLETE:
            return False
        start = (locked.hits.aggregate(last=Max("position"))["last"] or 0) + 1
        hits = Hit.objects.bulk_create(
            [
                Hit(job=job, position=start + n, assignments_wanted=assignments, reward=job.reward)
                for n in range(len(bundles))
            ]
        )
        HitItem.objects.bulk_create(
            [
                HitItem(hit=hit, item_id=int(pk), position=place)  # type: ignore[call-overload]
                for hit, pks in zip(hits, bundles, strict=True)
                for place, pk in enumerate(pks)
            ]
        )
        locked.state, locked.completed_at = JobState.COLLECTING, None
        locked.save(update_fields=["state", "completed_at", "updated"])
    job.state = JobState.COLLECTING
    return True


def give_back_hits(job: Job) -> None:
    """The budget refused the claimed HITs: drop those unpublished; the job is complete again."""
    with transaction.atomic():
        locked = Job.objects.select_for_update().get(pk=job.pk)
        locked.hits.filter(external_id="").delete()
        locked.state, locked.completed_at = JobState.COMPLETE, timezone.now()
        locked.save(update_fields=["state", "completed_at", "updated"])


@dataclass(frozen=True)
class AdaptiveSummary:
    """The dashboard's figures for an adaptive job."""

    policy: AdaptivePolicy
    items: int
    labels: int
    labels_per_item: list[tuple[int, int]]  # (labels, how many items got that many)
    fixed_labels: int  # what max_workers per item would have asked for
    cost_per_label: Decimal
    currency: str

    @property
    def labels_saved(self) -> int:
        return self.fixed_labels - self.labels

    @property
    def money_saved(self) -> Decimal:
        return (self.cost_per_label * self.labels_saved).quantize(Decimal("0.01"))


def adaptive_summary(job: Job) -> AdaptiveSummary | None:
    """Labels per item so far and the money saved against asking ``max_workers`` of every item."""
    adaptive = adaptive_policy(job.params)
    if adaptive is None:
        return None
    per_item = counted_responses(job).values("item_id").annotate(n=Count("pk")).values_list("n", flat=True)
    histogram = Counter(per_item)
    items = job.items.filter(is_gold=False).count()
    labels = sum(n * count for n, count in histogram.items())
    first = job.hits.order_by("position").annotate(n=Count("items")).first()
    per_label = job.reward / first.n if first is not None and first.n else Decimal(0)
    return AdaptiveSummary(
        policy=adaptive,
        items=items,
        labels=labels,
        labels_per_item=sorted(histogram.items()),
        fixed_labels=adaptive.max_workers * items,
        cost_per_label=Decimal(per_label),
        currency=job.currency,
    )
