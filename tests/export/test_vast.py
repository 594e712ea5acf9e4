"""`export_vast`: a vast_stance job's answers as VAST's CSV, loaded back with pandas; and the command."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from aggregation.services import aggregate_job
from annotation.models import Job, Response
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus.models import Claim
from corpus.services import import_perspectrum
from export.vast import VastExportError, export_vast, stance_answer
from export.vast_rows import COLUMNS
from tests.annotation.factories import make_corpus, make_vast_corpus

pytestmark = pytest.mark.django_db
CROWD: dict[str, Any] = {"size": 12, "spammer_share": 0.25, "seed": 3}


def simulated_job(filters: dict[str, Any]) -> Job:
    job = create_job("vast_stance", filters, market="simulated", params={"crowd": CROWD})
    publish_job(job.pk)
    return sync_job(job.pk)


def test_the_csv_has_vasts_columns_and_a_row_per_example(tmp_path: Path) -> None:
    make_vast_corpus()
    job = simulated_job({"status": "kept"})
    report = export_vast(job.pk, tmp_path / "vast.csv")

    frame = pd.read_csv(tmp_path / "vast.csv", keep_default_na=False)
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == report.rows and report.simulated and set(frame["simulated"]) == {1}
    assert set(frame["type_idx"]) <= {1, 2, 3, 4} and 1 in set(frame["type_idx"])
    assert set(frame["label"]) <= {0, 1, 2}
    assert list(frame["new_id"]) == list(range(1, len(frame) + 1))
    items = {item.key: item for item in job.items.all()}
    assert set(frame["ori_id"]) <= set(items)
    for row in frame.itertuples():
        assert row.post == items[row.ori_id].payload["comment"]
        assert row.arc_id == items[row.ori_id].payload["cid"]


def test_heuristic_rows_carry_the_majority_of_their_votes(tmp_path: Path) -> None:
    make_vast_corpus()
    job = simulated_job({"status": "kept"})
    export_vast(job.pk, tmp_path / "vast.csv", min_competence=0.0)

    frame = pd.read_csv(tmp_path / "vast.csv", keep_default_na=False)
    heur = frame[frame["type_idx"] == 1]
    assert len(heur) > 0
    for row in heur.itertuples():
        votes = {0: row.Con, 1: row.Pro, 2: row.Neutral}
        assert votes[row.label] > max(v for label, v in votes.items() if label != row.label)
        assert row.new_topic == row.ori_topic and row.is_new_topic == 0


def test_neutral_rows_pair_a_comment_with_a_topic_sharing_no_word_with_its_own(tmp_path: Path) -> None:
    make_vast_corpus()
    job = simulated_job({"status": "kept"})
    export_vast(job.pk, tmp_path / "vast.csv", neutral_share=1.0)

    frame = pd.read_csv(tmp_path / "vast.csv", keep_default_na=False)
    neutral = frame[frame["type_idx"] == 4]
    assert len(neutral) > 0 and set(neutral["label"]) == {2}
    for row in neutral.itertuples():
        own = frame[(frame["post"] == row.post) & (frame["type_idx"] != 4)]
        assert not set(row.topic_str.split()) & {w for t in own["topic_str"] for w in t.split()}


def test_poor_workers_are_reported_and_agreement_is_given_with_and_without_them(tmp_path: Path) -> None:
    make_vast_corpus()
    job = simulated_job({"status": "kept"})
    report = export_vast(job.pk, tmp_path / "vast.csv", min_competence=1.0, min_answers=1)

    assert report.poor_workers == sorted(report.competence)  # nobody is perfectly competent
    assert report.agreement.items > 0 and report.agreement.krippendorff_alpha is not None
    assert report.agreement_without_poor.items == 0  # everyone left out


def test_the_command_writes_the_csv_and_prints_the_figures(tmp_path: Path) -> None:
    make_vast_corpus()
    job = simulated_job({"status": "kept"})
    out = StringIO()
    call_command("export_vast", str(job.pk), "--out", str(tmp_path / "out" / "vast.csv"), stdout=out)

    printed = out.getvalue()
    assert "answers of a simulated crowd" in printed and "Krippendorff's alpha" in printed
    assert len(pd.read_csv(tmp_path / "out" / "vast.csv")) > 0


def test_the_command_refuses_a_job_of_another_task_type_or_none_at_all(tmp_path: Path) -> None:
    make_corpus(claims=1, perspectives=1)
    stance = create_job("stance", {})
    with pytest.raises(CommandError, match="is a stance job, not vast_stance"):
        call_command("export_vast", str(stance.pk), "--out", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="there is no job 999999"):
        call_command("export_vast", "999999", "--out", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="between 0 and 1"):
        call_command("export_vast", str(stance.pk), "--out", str(tmp_path / "x.csv"), "--min-competence", "2")
    with pytest.raises(CommandError, match="min_answers must be at least 1"):
        call_command("export_vast", str(stance.pk), "--out", str(tmp_path / "x.csv"), "--min-answers", "0")
    assert not (tmp_path / "x.csv").exists()


def test_a_job_without_answers_is_refused(tmp_path: Path) -> None:
    make_vast_corpus()
    job = create_job("vast_stance", {"status": "kept"})
    with pytest.raises(VastExportError, match="has no counted answers yet"):
        export_vast(job.pk, tmp_path / "vast.csv")


@pytest.mark.parametrize(
    "value",
    [None, "PRO", {"stance": "MAYBE", "topics": []}, {"stance": "PRO", "topics": "not a list"}],
)
def test_a_stored_value_that_is_not_a_vast_answer_is_skipped(value: Any) -> None:
    assert stance_answer(1, 2, value) is None


def test_the_declared_rule_aggregates_a_vast_job() -> None:
    make_vast_corpus()
    job = simulated_job({"status": "kept"})
    report = aggregate_job(job.pk)
    assert report.items == job.items.count() and report.kept + report.rejected + report.no_majority > 0
    assert Response.objects.filter(job=job, label="corrected").exists()


@pytest.mark.slow
def test_a_simulated_vast_job_over_release_claims_exports_a_csv_pandas_loads(
    perspectrum_dir: Path, tmp_path: Path
) -> None:
    import_perspectrum(perspectrum_dir)
    tagged = Claim.objects.filter(claim_topics__isnull=False).distinct().order_by("cid")
    cids = list(tagged.values_list("cid", flat=True)[:5])
    job = simulated_job({"claims": cids, "status": "kept"})
    report = export_vast(job.pk, tmp_path / "vast.csv")

    frame = pd.read_csv(tmp_path / "vast.csv", keep_default_na=False)
    assert tuple(frame.columns) == COLUMNS and len(frame) == report.rows > job.items.count()
    assert {1, 3, 4} <= set(frame["type_idx"])
    assert set(frame["arc_id"]) <= set(cids)
