"""Accuracy against known answers, per worker and per job, and a bonus for each correct answer.

For task types whose items carry their answer by design (counter-speech selection: which opposing
text was written in response is known), every answer can be graded, not only gold. The paper reports
"the accuracy of each annotator, averaging over annotators" (Orbach et al. 2020, §4): that is
`JobAccuracy.mean_worker_accuracy`; `overall` pools every answer.

Bonuses are paid only through `annotation.work.market.bonus_assignment` (ledger row first, within
the job's `bonus_cap`), one per correct answer, named by the item, so running this again pays
nothing twice: the second run finds each row already recorded and confirmed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal

from django.db.models import Count

from annotation.market_interface.base import MarketCallError
from annotation.market_interface.errors import MarketError
from annotation.market_interface.registry import get_market
from annotation.models import AssignmentState, HitItem, Job, Response
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer
from annotation.work.job_errors import BudgetError
from annotation.work.market import bonus_assignment
from annotation.work.records import ReviewError

CENT = Decimal("0.01")


@dataclass
class Tally:
    answered: int = 0
    correct: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None

    def add(self, correct: bool) -> None:
        self.answered += 1
        self.correct += int(correct)


@dataclass
class JobAccuracy:
    """Answers graded against the items' known answers: pooled, by worker pk and by item pk."""

    job_id: int
    overall: Tally = field(default_factory=Tally)
    workers: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))
    items: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))

    @property
    def mean_worker_accuracy(self) -> float | None:
        """Each worker's accuracy, averaged over workers (the paper's figure)."""
        rates = [tally.accuracy for tally in self.workers.values() if tally.accuracy is not None]
        return sum(rates) / len(rates) if rates else None


def graded_responses(job: Job) -> list[tuple[Response, bool]]:
    """The job's submitted answers to items with a known answer, each with whether it is right."""
    task_type = get_task_type(job.task_type)
    responses = (
        Response.objects.filter(
            job=job, item__known_answer__isnull=False, assignment__state__in=AssignmentState.done()
        )
        .select_related("item__job", "assignment")
        .order_by("pk")
    )
    return [
        (response, task_type.is_correct(response.item, Answer(label=response.label, value=response.value)))
        for response in responses
    ]


def job_accuracy(job_id: int) -> JobAccuracy:
    job = Job.objects.get(pk=job_id)
    found = JobAccuracy(job_id=job.pk)
    for response, correct in graded_responses(job):
        found.overall.add(correct)
        found.workers[response.worker_id].add(correct)
        found.items[response.item_id].add(correct)
    return found


@dataclass
class BonusReport:
    """What one run of `bonus_correct_answers` did: rows paid (now or before), money, refusals."""

    paid: int = 0
    amount: Decimal = Decimal("0")
    refused: list[str] = field(default_factory=list)
    note: str = ""


def item_shares(job: Job) -> dict[int, Decimal]:
    """Per HIT pk, its reward's share per item, in whole cents rounded down (never more than paid)."""
    counts = HitItem.objects.filter(hit__job=job).values("hit_id").annotate(n=Count("pk"))
    rewards = dict(job.hits.values_list("pk", "reward"))
    return {
        row["hit_id"]: (rewards[row["hit_id"]] / row["n"]).quantize(CENT, rounding=ROUND_DOWN)
        for row in counts
    }


def bonus_correct_answers(job_id: int) -> BonusReport:
    """A bonus of the item's share of the reward for each correct answer on payable work: it doubles
    the pay of a correct answer (the paper's post-processing bonus). Safe to run again."""
    job = Job.objects.get(pk=job_id)
    market = get_market(job.market)
    report = BonusReport()
    if not get_task_type(job.task_type).bonus_per_correct_answer:
        report.note = f"{job.task_type} answers earn no bonus for being correct: none recorded"
        return report
    if not market.capabilities.bonus:
        report.note = f"the {market.name} market pays no bonuses: none recorded"
        return report
    shares = item_shares(job)
    for response, correct in graded_responses(job):
        assignment = response.assignment  # None only for a machine's label, which is never paid
        if assignment is None or not correct or assignment.state not in AssignmentState.payable():
            continue
        share = shares.get(assignment.hit_id, Decimal("0"))
        if share <= 0:
            continue
        reason, batch = f"Correct answer: {response.item.key}", f"correct:{response.item_id}"
        try:
            entry = bonus_assignment(assignment.pk, share, reason, batch)
        except (BudgetError, ReviewError, MarketCallError, MarketError) as error:
            report.refused.append(f"{response.item.key} by worker {response.worker_id}: {error}")
            continue
        report.paid += 1
        report.amount += entry.amount
    return report
