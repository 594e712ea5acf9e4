"""The parts of worker pages that are the same for every worker, rendered once and shared
(`{% shared_fragment %}`, annotation.templatetags.shared_fragments): a HIT's items, and a task type's
quiz questions. Their keys, and their reading and storing in Django's cache (Redis when REDIS_URL is
set, shared by the web processes, as JSON). A cache that cannot be reached costs the page its
rendering, never the page."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import sys
from dataclasses import dataclass

from django.core.cache import cache
from django.template.loader import get_template
from django.utils import translation
from redis import RedisError

from annotation.models import Job
from annotation.task_types import get_task_type
from annotation.web import forms, widgets


def items_key(job: Job, hit_id: int) -> str:
    """The key of a HIT's items as its task page shows them before any answer; "" when they are not
    the same for everybody. A HIT's items never change; the job's creation time tells apart jobs of
    one id (a test database's), and the code version a deployment's templates and fields."""
    task_type = get_task_type(job.task_type)
    if not task_type.items_shown_alike:
        return ""
    version = _code_version(task_type.slug, task_type.template)
    language = translation.get_language()
    return f"task-items:{job.pk}:{job.created.timestamp()}:{hit_id}:{language}:{version}"


QUIZ_TEMPLATE = "annotation/quiz.html"


def quiz_key(slug: str) -> str:
    """The key of a task type's quiz questions as its quiz page shows them before any answer. They are
    the task type's own (its code's), the same in every job."""
    return f"quiz:{slug}:{translation.get_language()}:{_code_version(slug, QUIZ_TEMPLATE)}"


FRAGMENT_SECONDS = 10 * 60  # a HIT's workers start within minutes of each other


@dataclass(frozen=True)
class Shared:
    """A shared part as the view read it, once, for the page to use: its key ("" when the part is not
    shared, or the cache is out of reach) and what the cache held under it (None: nothing yet)."""

    key: str
    markup: str | None = None


def read(key: str) -> Shared:
    """The part named `key`, read from the cache in one call."""
    if not key:
        return Shared("")
    try:
        return Shared(key, cache.get(key))
    except (RedisError, ValueError):  # out of reach, or not a value we wrote (config.json_cache)
        return Shared("")


def store(part: Shared, markup: str) -> None:
    """Keep the part as rendered for the next worker's page; a cache out of reach keeps nothing."""
    with contextlib.suppress(RedisError):
        cache.set(part.key, markup, FRAGMENT_SECONDS)


@functools.lru_cache(maxsize=64)
def _code_version(slug: str, template: str) -> str:
    """What a part's markup is made from, hashed: the page's template, the modules of the task type's
    classes (its fields, labels and quiz), the forms and the radio widget."""
    task_type = get_task_type(slug)
    modules = {sys.modules[cls.__module__] for cls in type(task_type).__mro__ if cls is not object}
    sources = [
        get_template(template).template.source,  # type: ignore[attr-defined]
        *sorted(inspect.getsource(module) for module in [*modules, forms, widgets]),
    ]
    return hashlib.sha256("\0".join(sources).encode()).hexdigest()[:16]
