"""What the registered task types declare about their aggregation, in the machinery's terms.

Aggregation knows no task type by name: it asks the registry (built-ins plus `ANNOTATION_TASK_TYPES`)
for the rule a task type declares and builds its label sets and agreement rule from it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from aggregation.rules import AgreementRule
from annotation.task_types import get_task_type, task_type_slugs
from annotation.task_types.base import TaskTypeError
from annotation.task_types.rules import AggregationRule, CategoricalRule
from config.wording import votes


def declared_rule(task_type: str) -> AggregationRule | None:
    """The rule the task type declares (None: its answers are not aggregated); `TaskTypeError` for an
    unknown or broken one."""
    return get_task_type(task_type).aggregation


def categorical_rule(task_type: str) -> AgreementRule | None:
    """The agreement rule of a task type whose answers are one label each; None for any other."""
    try:
        declared = declared_rule(task_type)
    except TaskTypeError:
        return None
    return AgreementRule.declared(declared) if isinstance(declared, CategoricalRule) else None


def categorical_rules() -> dict[str, AgreementRule]:
    """Every registered categorical task type's default rule, by slug."""
    found = {slug: categorical_rule(slug) for slug in task_type_slugs()}
    return {slug: rule for slug, rule in found.items() if rule is not None}


def rule_answering_in(labels: Collection[str]) -> tuple[str, AgreementRule] | None:
    """The task type whose labels are exactly these, with its rule; None when no single one's are.

    Its workers' answer labels give its rule; its decided labels (stance's 3 after collapsing 5) give
    the rule without the collapse. Labels collected for it are then decided as `aggregate_job` decides
    its jobs."""
    wanted = set(labels)
    found = [
        (slug, rule if set(rule.answer_set.labels) == wanted else replace(rule, collapse=None))
        for slug, rule in categorical_rules().items()
        if wanted in (set(rule.answer_set.labels), set(rule.label_set.labels))
    ]
    return found[0] if len(found) == 1 else None


def answer_spelling(task_type: str) -> Callable[[str], str]:
    """How a worker page's stored label is spelled in the task type's rule (identity if it has none)."""
    try:
        declared = declared_rule(task_type)
    except TaskTypeError:
        return str
    return declared.spell if isinstance(declared, CategoricalRule) else str


def described_votes(task_type: str, counts: list[int]) -> str:
    """An outcome's votes with their label names ("Supports 2, Not a valid perspective 1"), in the
    order the task's workers answer in; the bare numbers when the task type no longer names that many."""
    rule = categorical_rule(task_type)
    labels = rule.answer_set.labels if rule is not None else ()
    if not counts:
        return "no votes"
    if len(labels) != len(counts):
        return ", ".join(str(number) for number in counts)
    return votes(counts, [get_task_type(task_type).label_name(label) for label in labels])
