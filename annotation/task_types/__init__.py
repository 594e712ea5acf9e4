"""The registry of task types. Adding one: write its module and template, then list it here."""

from __future__ import annotations

from annotation.task_types.base import TaskType, TaskTypeError
from annotation.task_types.evidence_verification import EvidenceVerificationTaskType
from annotation.task_types.paraphrase_verification import ParaphraseVerificationTaskType
from annotation.task_types.paraphrase_writing import ParaphraseWritingTaskType
from annotation.task_types.stance import StanceTaskType
from annotation.task_types.topic_tagging import TopicTaggingTaskType

REGISTRY: dict[str, TaskType] = {
    task_type.slug: task_type
    for task_type in (
        StanceTaskType(),
        ParaphraseWritingTaskType(),
        ParaphraseVerificationTaskType(),
        EvidenceVerificationTaskType(),
        TopicTaggingTaskType(),
    )
}


def get_task_type(slug: str) -> TaskType:
    try:
        return REGISTRY[slug]
    except KeyError:
        raise TaskTypeError(f"unknown task type {slug!r}; known: {sorted(REGISTRY)}") from None


def task_type_choices() -> list[tuple[str, str]]:
    return [(slug, task_type.name) for slug, task_type in REGISTRY.items()]
