"""A job's own exports, as downloads beside it on the job's page: the VAST CSV of a `vast_stance` job,
the results of a `counter_speech` job. The same services as `export_vast` and `export_counter_speech`."""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect

from accounts.permissions import staff_permission
from annotation.models import Job
from annotation.work.counter_speeches import COLUMNS, CounterSpeechExportError, counter_speech_rows
from config.csv_files import csv_lines
from export.vast import VastExportError, export_vast

VIEW_RESPONSES = "annotation.view_response"
# Which task types have a download of their own, and its name on the job's page.
DOWNLOADS = {"vast_stance": "the VAST CSV", "counter_speech": "the counter-speech results (CSV)"}


def _csv(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@staff_permission(VIEW_RESPONSES)
def job_download(request: HttpRequest, job_id: int) -> HttpResponse:
    """The job's export as a CSV download; a job that cannot be exported goes back to its page, saying why."""
    job = get_object_or_404(Job, pk=job_id)
    try:
        if job.task_type == "vast_stance":
            return _csv(_vast_csv(job.pk), f"vast-job{job.pk}.csv")
        if job.task_type == "counter_speech":
            rows = ([row.get(name) for name in COLUMNS] for row in counter_speech_rows(job.pk))
            return _csv("".join(csv_lines(list(COLUMNS), rows)), f"counter-speech-job{job.pk}.csv")
    except (VastExportError, CounterSpeechExportError) as error:
        messages.error(request, f"No download: {error}")
        return redirect("jobs:job", job_id=job.pk)
    messages.error(request, f"A {job.task_type} job has no download of its own: its results are in releases.")
    return redirect("jobs:job", job_id=job.pk)


def _vast_csv(job_id: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "vast.csv"
        export_vast(job_id, out)
        return out.read_text()
