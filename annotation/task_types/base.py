"""What a task type is: how items are chosen and bundled, the form, the instructions, the quiz, and
how its answers are aggregated and reach the corpus.

A task type is one module plus one template `annotation/task_types/<slug>.html` (blocks
`instructions` and `items`), listed in `registry.DEFAULT_TASK_TYPES` or `ANNOTATION_TASK_TYPES`.
Every number in `defaults` is a default a job can override (`Job.params`). Its aggregation is
declared as data (`rules.CategoricalRule` / `rules.MultiLabelRule`); the aggregation app applies it
and calls the hooks below with `decisions.Decision`s.
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.db.models import QuerySet

from annotation.quality.gold_schedule import QUALITY_PARAMS
from annotation.redundancy import REDUNDANCY_PARAMS
from annotation.simulation import WorkerModel
from annotation.simulation import answer as simulated_answer
from annotation.task_types.decisions import NO_MAJORITY_LABEL, Decision
from annotation.task_types.rules import AggregationRule
from corpus.models import Claim, PerspectiveCluster

if TYPE_CHECKING:
    from annotation.models import Item


class TaskTypeError(ValueError):
    """An unknown task type, or filters/parameters a task type cannot use."""


@dataclass(frozen=True)
class ItemSpec:
    """An item as a task type proposes it, before it is stored as `annotation.models.Item`."""

    key: str
    group: str
    payload: dict[str, Any]
    known_answer: Any = None
    claim_id: int | None = None
    perspective_id: int | None = None
    cluster_id: int | None = None
    evidence_id: int | None = None
    # Worker pks who must never be given this item (the writer of a paraphrase).
    excluded_workers: tuple[int, ...] = ()


@dataclass(frozen=True)
class Answer:
    """One worker's answer to one item: a categorical `label`, and `value` when there is more."""

    label: str = ""
    value: Any = None


@dataclass(frozen=True)
class QuizQuestion:
    """A worked example with a known answer; `explanation` is shown after grading."""

    key: str
    context: tuple[tuple[str, str], ...]
    question: str
    choices: tuple[tuple[str, str], ...]
    answer: str
    explanation: str = ""


# Job parameters every task type accepts: how the job is offered and paid on a crowd market.
# Absent, the market's defaults apply (annotation/markets/<market>/market.py, work.jobs for costs).
MARKET_PARAMS = frozenset(
    {
        "bonus_cap",  # the most all bonuses of the job may total (before fees); 0 allows no bonus
        "fee_rate",  # the market's fee on rewards and bonuses, when it differs from the market's default
        "currency",
        "title",
        "description",
        "keywords",
        "lifetime_seconds",  # MTurk: how long a HIT is offered
        "assignment_seconds",  # MTurk: how long a worker has for one HIT
        "minutes",  # Prolific: estimated completion time
        "completion_code",  # Prolific
        "rejection_category",  # Prolific
        "prolific_screening",  # Prolific: who may take the study (annotation/markets/prolific/screening.py)
        "mturk_locales",
        "mturk_min_approved_hits",
        "mturk_min_approval_rate",
    }
)
# A machine beside the crowd: {annotator, target_error, confidence, calibration_items}
# (annotation/machines/plans.py).
MACHINE_PARAMS = frozenset({"machine"})


@dataclass(frozen=True)
class Defaults:
    groups_per_hit: int
    workers_per_item: int
    reward: Decimal
    gold_per_hit: int = 0
    quiz_pass_mark: float = 0.75
    quiz_attempts: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def as_params(self) -> dict[str, Any]:
        return {
            "groups_per_hit": self.groups_per_hit,
            "workers_per_item": self.workers_per_item,
            "reward": str(self.reward),
            "gold_per_hit": self.gold_per_hit,
            "quiz_pass_mark": self.quiz_pass_mark,
            "quiz_attempts": self.quiz_attempts,
            "seed": 0,
            # Shapes the simulated crowd (annotation.simulation.CrowdParams); ignored by people.
            "crowd": {},
            **self.extra,
        }


class TaskType:
    """Base class; subclasses set the class attributes and implement `select_items` and `field`."""

    slug: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    labels: ClassVar[tuple[tuple[str, str], ...]] = ()
    defaults: ClassVar[Defaults]
    quiz: ClassVar[tuple[QuizQuestion, ...]] = ()
    # How its answers are decided; None: they are not aggregated (free text).
    aggregation: ClassVar[AggregationRule | None] = None
    # A HIT of one item posts its fields under their own names (an MTurk template's scripts read
    # them so) instead of `item-<pk>-<name>`.
    bare_field_names: ClassVar[bool] = False
    # Whether its known answers are right by design, so that each correct answer earns a bonus
    # (annotation.work.accuracy.bonus_correct_answers); a stance's crawled side is only a hint.
    bonus_per_correct_answer: ClassVar[bool] = False
    # Whether a HIT's unanswered items look the same to every worker, so the task page renders them
    # once and shares them (annotation.web.fragments); not where they show more than the items.
    items_shown_alike: ClassVar[bool] = True
    # The payload's texts a machine annotator reads, in order (aggregation.machine_training); empty:
    # no machine can label this task type.
    machine_texts: ClassVar[tuple[str, ...]] = ()
    # The prompt an openai_compatible machine is asked with, formatted with the payload's machine
    # texts, and its version (a reply is cached under it: a changed prompt is a new version).
    machine_prompt: ClassVar[str] = ""
    machine_prompt_version: ClassVar[str] = ""

    @property
    def template(self) -> str:
        return f"annotation/task_types/{self.slug}.html"

    def params(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The defaults with a job's overrides; unknown names are refused so typos do not pass silently."""
        merged = self.defaults.as_params()
        unknown = (
            set(overrides or {})
            - set(merged)
            - MARKET_PARAMS
            - REDUNDANCY_PARAMS
            - MACHINE_PARAMS
            - QUALITY_PARAMS
        )
        if unknown:
            raise TaskTypeError(f"{self.slug} has no parameter(s) {sorted(unknown)}; known: {sorted(merged)}")
        merged.update(overrides or {})
        return merged

    def content_security_policy(self, job: Any) -> str | None:
        """Extra Content-Security-Policy for the job's worker pages; None: the platform's own."""
        return None

    # Items ----------------------------------------------------------------------------------------
    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        raise NotImplementedError

    def select_gold(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        """Gold candidates: the items chosen by the `gold` filters that have a known answer."""
        for spec in self.select_items(filters, params):
            if spec.known_answer is not None:
                yield spec

    # The form -------------------------------------------------------------------------------------
    def fields(self, item: Item) -> dict[str, forms.Field]:
        """The form fields for one item, by suffix; the base gives one required choice of `labels`."""
        return {"": labels_field(self.labels)}

    def clean_item(self, item: Item, cleaned: Mapping[str, Any]) -> dict[str, str]:
        """Errors between one item's valid fields, by suffix → message; none by default."""
        return {}

    def answer(self, item: Item, cleaned: Mapping[str, Any]) -> Answer:
        """Turn one item's cleaned field values (by suffix) into an answer."""
        return Answer(label=str(cleaned[""]))

    def is_correct(self, item: Item, answer: Answer) -> bool:
        return bool(answer.label == item.known_answer)

    # The simulated crowd --------------------------------------------------------------------------
    def simulate(self, item: Item, worker: WorkerModel, rng: random.Random) -> Answer:
        if item.known_answer is None:
            raise TaskTypeError(f"item {item.key} has no known answer for a simulated worker to start from")
        labels = [value for value, _ in self.labels]
        return Answer(label=simulated_answer(worker, str(item.known_answer), labels, rng))

    @property
    def label_values(self) -> list[str]:
        return [value for value, _ in self.labels]

    def label_name(self, code: str) -> str:
        """The name a person reads for a label code ("Mildly supports" for MILDLY_SUPPORT); an outcome
        with no majority reads "No majority". A decided label spelt in capitals ("NOT_SUPPORTED" for the
        workers' "not_supported") reads as the workers' label does; a code the task type does not name,
        as words ("Not supported")."""
        if code == NO_MAJORITY_LABEL or not code:
            return "No majority"
        names = {value.lower(): name for value, name in self.labels}
        return names.get(code.lower()) or code.replace("_", " ").capitalize()

    # Aggregation hooks ----------------------------------------------------------------------------
    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        """Make the corpus agree with a job's decisions; returns the rows changed. Aggregation passes
        the decisions of the items that link a corpus row (claim, perspective, cluster or evidence).

        Runs inside the aggregation's transaction and must be a no-op the second time, so
        re-aggregating a job changes nothing. The base writes nothing.
        """
        return 0

    def write_adjudication(self, decision: Decision, rule: str) -> None:
        """What an expert's final label writes (``decision.fine_label`` as answered, ``label`` as
        decided); by default the same as a crowd decision would."""
        self.write_back([decision], rule)

    def corpus_status(self, item: Item) -> str | None:
        """The status the corpus holds for the item now, when it keeps one; None: the crowd outcome's."""
        return None

    def reference_answers(self, items: QuerySet[Item]) -> dict[int, str]:
        """Per item pk, a reference answer besides gold (as a worker page stores it), e.g. the side a
        debate site put a point on. An outcome whose majority differs from it is contested."""
        return {}


# Shared corpus selection ----------------------------------------------------------------------------


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, Iterable):
        return list(value)
    return [value]


def select_claims(filters: Mapping[str, Any]) -> QuerySet[Claim]:
    """Claims by the common filters: claims (cIds), source, split, topic, limit. Never text-missing ones."""
    known = {
        "claims",
        "source",
        "split",
        "topic",
        "limit",
        "status",
        "members",
        "gold",
        "candidates",
        "hints",
        # no selection: which ranking chose the candidates or hints (releases list it)
        "candidates_ranked_by",
    }
    unknown = set(filters) - known
    if unknown:
        raise TaskTypeError(f"unknown filter(s) {sorted(unknown)}; known: {sorted(known)}")
    claims = Claim.objects.filter(text_missing=False)
    if cids := _as_list(filters.get("claims")):
        claims = claims.filter(cid__in=[int(cid) for cid in cids])
    if sources := _as_list(filters.get("source")):
        claims = claims.filter(source__in=sources)
    if splits := _as_list(filters.get("split")):
        claims = claims.filter(split__in=splits)
    if topics := _as_list(filters.get("topic")):
        claims = claims.filter(topics__slug__in=topics).distinct()
    claims = claims.order_by("cid")
    if filters.get("limit"):
        claims = claims[: int(filters["limit"])]
    return claims


def select_clusters(filters: Mapping[str, Any]) -> QuerySet[PerspectiveCluster]:
    """Clusters of the selected claims, optionally by status, in claim then position order."""
    clusters = PerspectiveCluster.objects.filter(
        claim__in=list(select_claims(filters).values_list("pk", flat=True))
    )
    if statuses := _as_list(filters.get("status")):
        clusters = clusters.filter(status__in=statuses)
    return clusters.select_related("claim").order_by("claim__cid", "position")


def gold_filters(filters: Mapping[str, Any]) -> dict[str, Any] | None:
    gold = filters.get("gold")
    return dict(gold) if isinstance(gold, Mapping) else None


def last_positions(rows: Iterable[Mapping[str, int]]) -> dict[int, int]:
    """cluster pk → last position, from ``values("cluster_id").annotate(last=Max("position"))`` rows."""
    return {row["cluster_id"]: row["last"] for row in rows}


def labels_field(labels: tuple[tuple[str, str], ...]) -> forms.ChoiceField:
    """A required choice of `labels` as radio buttons, copied from one built once per label set:
    building one normalizes its choices twice, a tenth of the CPU of a 50-item HIT's answers. The copy
    has its own widget, attributes, messages and validators; the choices, never changed in place,
    are shared."""
    built = _labels_prototype(labels)
    field = copy.copy(built)
    field.widget = copy.copy(built.widget)
    field.widget.attrs = dict(built.widget.attrs)
    field.error_messages = dict(built.error_messages)
    field.validators = list(built.validators)
    return field


@functools.lru_cache(maxsize=64)
def _labels_prototype(labels: tuple[tuple[str, str], ...]) -> forms.ChoiceField:
    return forms.ChoiceField(choices=labels, widget=forms.RadioSelect, required=True)
