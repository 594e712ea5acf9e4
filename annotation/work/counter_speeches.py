"""A counter-speech job's results, one row per question: the texts, the true answer, the workers'
picks, their accuracy and reasons. The rows an export writes (`manage.py export_counter_speech`)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from annotation.models import Job
from annotation.work.accuracy import graded_responses

COLUMNS = (
    "item",
    "motion",
    "point",
    "candidates",
    "true_answer",
    "chosen_answers",
    "answered",
    "correct",
    "accuracy",
    "reasons",
    "other_reasons",
    "simulated",
)


class CounterSpeechExportError(ValueError):
    """No such job, or a job of another task type."""


def counter_speech_rows(job_id: int) -> list[dict[str, Any]]:
    """One row per item, in item order; lists are JSON text so a CSV keeps them whole."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        raise CounterSpeechExportError(f"no job {job_id}")
    if job.task_type != "counter_speech":
        raise CounterSpeechExportError(f"job {job.pk} is a {job.task_type} job, not counter_speech")
    answers: dict[int, list[tuple[Any, bool]]] = {}
    for response, correct in graded_responses(job):
        answers.setdefault(response.item_id, []).append((response, correct))
    rows = []
    for item in job.items.order_by("pk"):
        given = answers.get(item.pk, [])
        reasons: Counter[str] = Counter()
        for response, _ in given:
            reasons.update((response.value or {}).get("reasons", []))
        right = sum(1 for _, correct in given if correct)
        rows.append(
            {
                "item": item.key,
                "motion": item.payload["motion"],
                "point": item.payload["point"],
                "candidates": json.dumps(item.payload["candidates"], ensure_ascii=False),
                "true_answer": item.known_answer,
                "chosen_answers": json.dumps([response.label for response, _ in given]),
                "answered": len(given),
                "correct": right,
                "accuracy": right / len(given) if given else None,
                "reasons": json.dumps(dict(sorted(reasons.items()))),
                "other_reasons": json.dumps(
                    [text for response, _ in given if (text := (response.value or {}).get("other"))],
                    ensure_ascii=False,
                ),
                "simulated": any(response.simulated for response, _ in given),
            }
        )
    return rows
