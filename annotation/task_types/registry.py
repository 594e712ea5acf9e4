"""The registry of task types: the built-ins, with `ANNOTATION_TASK_TYPES` in settings merged over them
({"slug": "dotted.path.Class"}), so a project can add or replace one without touching this app."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from django.conf import settings

from annotation.task_types.base import TaskType, TaskTypeError
from annotation.task_types.rules import RuleDeclarationError

DEFAULT_TASK_TYPES = {
    "stance": "annotation.task_types.stance.StanceTaskType",
    "paraphrase_writing": "annotation.task_types.paraphrase_writing.ParaphraseWritingTaskType",
    "paraphrase_verification": "annotation.task_types.paraphrase_verification.ParaphraseVerificationTaskType",
    "evidence_verification": "annotation.task_types.evidence_verification.EvidenceVerificationTaskType",
    "topic_tagging": "annotation.task_types.topic_tagging.TopicTaggingTaskType",
    "mturk_template": "annotation.task_types.mturk_template.MTurkTemplateTaskType",
    "vast_stance": "annotation.task_types.vast_stance.VastStanceTaskType",
    "counter_speech": "annotation.task_types.counter_speech.CounterSpeechTaskType",
}


def task_type_paths() -> dict[str, str]:
    return {**DEFAULT_TASK_TYPES, **getattr(settings, "ANNOTATION_TASK_TYPES", {})}


def get_task_type(slug: str) -> TaskType:
    path = task_type_paths().get(slug)
    if path is None:
        raise TaskTypeError(f"unknown task type {slug!r}; known: {sorted(task_type_paths())}")
    task_type = _load(path)
    if task_type.slug != slug:
        raise TaskTypeError(f"task type {slug!r} names {path}, whose slug is {task_type.slug!r}")
    return task_type


@cache
def _load(path: str) -> TaskType:
    """One instance per class path: task types hold no state, and importing is done once."""
    module_name, _, class_name = path.rpartition(".")
    try:
        cls = getattr(import_module(module_name), class_name)
    except (ImportError, AttributeError, RuleDeclarationError) as error:
        raise TaskTypeError(f"task type {path!r} cannot be loaded ({error})") from error
    if not (isinstance(cls, type) and issubclass(cls, TaskType)):
        raise TaskTypeError(f"{path!r} is not a TaskType subclass")
    task_type: TaskType = cls()
    return task_type


def task_type_slugs() -> list[str]:
    return list(task_type_paths())


def task_type_choices() -> list[tuple[str, str]]:
    return [(slug, get_task_type(slug).name) for slug in task_type_paths()]
