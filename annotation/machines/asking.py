"""Labelling a job's items with an openai_compatible machine: cached replies, a per-job spend cap
checked before each batch, and lost replies, 429s and timeouts handled as a market's are.

- A reply is cached by (model, prompt version, the item's texts): a re-run reads it and calls nothing.
- Before each call its row is written (ASKED, at the call's worst-case cost), so the job's spend counts
  every call that may have been charged; the row is then updated with what came back.
- A lost reply or a timeout leaves the row UNCLEAR, its worst-case cost counted; it is never resent
  (nothing could tell whether it was served), and the item goes to people.
- An error status was refused, not served: a request the server will never serve (400, 413, 422) is
  no answer, kept so it is not asked again; any other (a 429, a key, a model, the server's failure)
  has its row removed, and the run stops, to be run again later.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Sum

from annotation.machines.chat import (
    ChatEndpoint,
    ChatLostError,
    ChatRefusedError,
    ask,
    parse_label,
    worst_case_cost,
)
from annotation.machines.keys import example_key
from annotation.machines.models import MachineAnnotator, MachineBackend, MachineReply, ReplyState
from annotation.machines.services import MachineError, record_machine_labels
from annotation.models import Item, Job
from annotation.task_types.base import TaskType
from annotation.task_types.registry import get_task_type

Pause = Callable[[float], None]


@dataclass
class ChatRun:
    """What one run did: calls made, replies read from the cache, and why it stopped early, if it did."""

    asked: int = 0
    cached: int = 0
    unclear: int = 0
    labels: dict[int, str] = field(default_factory=dict)  # item id → the machine's label
    stopped: str = ""


@dataclass(frozen=True)
class _Question:
    item: int
    key: str
    prompt: str


def job_spend(job: Job) -> Decimal:
    """What the job's machine calls have cost, counting each unanswered call at its worst case."""
    return MachineReply.objects.filter(job=job).aggregate(total=Sum("cost"))["total"] or Decimal(0)


def _questions(task: TaskType, items: list[Item]) -> list[_Question]:
    questions = []
    for item in items:
        texts = {name: str(item.payload.get(name, "")) for name in task.machine_texts}
        key = example_key([texts[name] for name in task.machine_texts])
        questions.append(_Question(item.pk, key, task.machine_prompt.format(**texts)))
    return questions


def worst_case_spend(annotator: MachineAnnotator, job: Job) -> Decimal:
    """What asking the machine about every item of the job can cost at most: each call not in the cache
    at its worst case (items of the same texts are one call). A local machine costs nothing."""
    task = get_task_type(job.task_type)
    if annotator.backend != MachineBackend.OPENAI_COMPATIBLE or not task.machine_prompt:
        return Decimal(0)
    fresh = {q.key: q for q in _questions(task, list(job.items.order_by("pk")))}
    cached = MachineReply.objects.filter(
        model_name=annotator.model_name, prompt_version=annotator.prompt_version, example_key__in=list(fresh)
    ).values_list("example_key", flat=True)
    for key in cached:
        fresh.pop(key, None)
    price = Decimal(str(annotator.settings.get("price_per_1k_tokens", "0")))
    return sum((worst_case_cost(q.prompt, price) for q in fresh.values()), Decimal(0))


def label_job_by_chat(
    annotator: MachineAnnotator,
    job: Job,
    cap: Decimal,
    *,
    endpoint: ChatEndpoint | None = None,
    pause: Pause = time.sleep,
) -> ChatRun:
    """Ask the machine about every item of the job, a minute's worth of requests per batch, within
    ``cap``; record the labels it gave as machine responses."""
    task = get_task_type(job.task_type)
    if not task.machine_prompt or annotator.prompt_version != task.machine_prompt_version:
        raise MachineError(
            f"{annotator} is not asked with {job.task_type}'s prompt {task.machine_prompt_version!r}"
        )
    per_minute = int(annotator.settings.get("requests_per_minute", 60))
    questions = _questions(task, list(job.items.order_by("pk")))
    run = ChatRun()
    for start in range(0, len(questions), per_minute):
        _batch(annotator, job, cap, questions[start : start + per_minute], run, endpoint, pause)
        if run.stopped:
            break
    record_machine_labels(annotator, job, run.labels)
    return run


def _batch(
    annotator: MachineAnnotator,
    job: Job,
    cap: Decimal,
    batch: list[_Question],
    run: ChatRun,
    endpoint: ChatEndpoint | None,
    pause: Pause,
) -> None:
    """One batch: cached replies read, the cap checked for the calls left, then those calls made."""
    cached = dict(
        MachineReply.objects.filter(
            model_name=annotator.model_name,
            prompt_version=annotator.prompt_version,
            example_key__in=[q.key for q in batch],
        ).values_list("example_key", "label")
    )
    fresh = {q.key: q for q in batch if q.key not in cached}  # one call for items of the same texts
    price = Decimal(str(annotator.settings.get("price_per_1k_tokens", "0")))
    worst = sum((worst_case_cost(q.prompt, price) for q in fresh.values()), Decimal(0))
    spent = job_spend(job)
    if fresh and spent + worst > cap:
        run.stopped = (
            f"the job's machine spend cap {cap} would be passed: {spent:.4f} spent, and the next "
            f"{len(fresh)} calls may cost up to {worst:.4f}"
        )
    else:
        endpoint = endpoint or ChatEndpoint.from_settings()
        for key, question in fresh.items():
            cached[key] = _ask_one(annotator, job, question, price, endpoint, run)
            if run.stopped:
                break
            pause(60.0 / int(annotator.settings.get("requests_per_minute", 60)))
    run.cached += sum(q.key not in fresh for q in batch)
    run.labels.update({q.item: cached[q.key] for q in batch if cached.get(q.key)})


def _ask_one(
    annotator: MachineAnnotator,
    job: Job,
    question: _Question,
    price: Decimal,
    endpoint: ChatEndpoint,
    run: ChatRun,
) -> str:
    """One call, recorded before it is made; returns the label it gave ("" for none)."""
    if endpoint.model != annotator.model_name:
        raise MachineError(
            f"{annotator} is model {annotator.model_name}, the endpoint serves {endpoint.model}"
        )
    row = MachineReply.objects.create(
        model_name=annotator.model_name,
        prompt_version=annotator.prompt_version,
        example_key=question.key,
        job=job,
        cost=worst_case_cost(question.prompt, price),
    )
    run.asked += 1
    try:
        reply = ask(endpoint, question.prompt, float(annotator.settings.get("temperature", 0.0)))
    except ChatRefusedError as error:
        return _refused(row, error, run)
    except ChatLostError as error:
        row.state, row.text = ReplyState.UNCLEAR, str(error)[:500]
        row.save(update_fields=["state", "text"])
        run.unclear += 1
        return ""
    label = parse_label(reply, get_task_type(job.task_type).label_values)
    row.state = ReplyState.ANSWERED if label else ReplyState.NO_ANSWER
    row.label, row.text, row.tokens = label, reply.text[:500], reply.tokens
    row.cost = Decimal(reply.tokens) * price / 1000
    row.save(update_fields=["state", "label", "text", "tokens", "cost"])
    return label


def _refused(row: MachineReply, error: ChatRefusedError, run: ChatRun) -> str:
    """An error status served nothing and charged nothing. A request the server will never serve is no
    answer, kept so that no run asks it again (the item goes to people); any other status (a 429, a
    key, a model, the server) would meet every call: the row is removed and the run stops, to be run
    again once that is put right."""
    if error.request_at_fault:
        row.state, row.text, row.cost = ReplyState.NO_ANSWER, str(error)[:500], Decimal(0)
        row.save(update_fields=["state", "text", "cost"])
        return ""
    row.delete()
    run.stopped = f"the server refused a call ({str(error)[:200]}); nothing was charged: run again later"
    return ""
