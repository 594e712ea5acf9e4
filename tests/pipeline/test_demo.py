"""`make run`'s data step on a fresh database: the release imported, the saved pages crawled, every
pipeline step done with the simulated crowd and said as it ends, and a release that verifies.

Run as `manage.py setup_demo` in its own process on a SQLite file of its own (the crawl inside it
is a further process), as `make run` does: the session's served demo (tests/served_demo.py), whose
output was read line by line. The test reads the results back with sqlite3, from a copy of the demo as
`setup_demo` left it.
"""

from __future__ import annotations

import html
import http.cookiejar
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from pipeline.definition import STEPS
from tests.served_demo import DATABASE, ServedDemo, copy_database

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"


@pytest.mark.slow
def test_setup_demo_shows_every_step_and_a_verified_release(served_demo: ServedDemo, tmp_path: Path) -> None:
    if not (SHARED / "fixtures" / "idebate" / "pages").is_dir():
        pytest.fail("the saved idebate pages are expected in ../shared/fixtures")
    copy_database(served_demo.as_set_up / DATABASE, tmp_path / DATABASE)
    shutil.copytree(served_demo.as_set_up / "var", tmp_path / "var")
    env = {
        **served_demo.env,
        "DATABASE_URL": f"sqlite:///{tmp_path / DATABASE}",
        "STANCEWORK_VAR_DIR": str(tmp_path / "var"),
    }

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    output, heard = served_demo.demo_output, served_demo.heard

    assert "SIMULATED crowd" in output
    # One line per step, each said while the later steps were still to run, not all at the end.
    assert [name for name, _ in heard] == [step.name for step in STEPS]
    done_when_heard = [done for _, done in heard]
    assert done_when_heard == sorted(done_when_heard) and done_when_heard[0] < len(STEPS) - 1, heard
    assert "No hostname was supplied" not in served_demo.demo_errors  # no broker is used
    with sqlite3.connect(tmp_path / DATABASE) as db:
        steps = db.execute(
            "SELECT s.name, s.state, s.message FROM pipeline_steprun s ORDER BY s.position"
        ).fetchall()
        simulated = db.execute("SELECT simulated FROM pipeline_pipelinerun").fetchall()
        claims = db.execute("SELECT COUNT(*) FROM corpus_claim WHERE text_missing = 0").fetchone()[0]
        crawled = db.execute("SELECT COUNT(*) FROM crawler_debate").fetchone()[0]
        real_responses = db.execute(
            "SELECT COUNT(*) FROM annotation_response WHERE simulated = 0"
        ).fetchone()[0]
    assert [state for _, state, _ in steps] == ["done"] * len(STEPS), steps
    assert simulated == [(1,)]
    assert crawled == 41
    assert claims >= 907
    assert real_responses == 0  # every response of the demo is labelled simulated
    assert "release demo-1" in steps[-1][2]
    vast = dict((name, message) for name, _, message in steps)["vast"]
    assert "complete and aggregated; VAST CSV:" in vast and "VAST CSV" in output
    (vast_csv,) = (tmp_path / "var" / "data" / "vast").glob("run*-job*.csv")
    frame = pd.read_csv(vast_csv, keep_default_na=False)
    assert len(frame) > 0 and {"post", "new_topic", "label", "type_idx"} <= set(frame.columns)
    assert set(frame["simulated"]) == {1}
    verified = manage("verify_release", str(tmp_path / "var" / "releases" / "demo-1"))
    assert "verified against its manifest and schemas" in verified
    machine_beside_the_crowd(served_demo, tmp_path, dict((name, message) for name, _, message in steps))

    manage("export_release", "--version", "demo-1", "--out", str(tmp_path / "first"))
    # make run again, with make's HOST and PORT: nothing new is crawled, imported or released.
    again = manage("setup_demo", "--url", "http://10.0.0.7:8123/")
    assert "release demo-1" in again
    assert "already imported, not imported again" in again and "updated" not in again
    assert "Staff login for http://10.0.0.7:8123/ : admin / " in again
    assert "  stance: reused — done before (job 1 complete and aggregated" in again
    with sqlite3.connect(tmp_path / DATABASE) as db:
        assert db.execute("SELECT COUNT(*) FROM annotation_machineannotator").fetchone()[0] == 1
    manage("export_release", "--version", "demo-1", "--out", str(tmp_path / "second"))
    first = {path.name: path.read_bytes() for path in (tmp_path / "first").iterdir()}
    assert first == {path.name: path.read_bytes() for path in (tmp_path / "second").iterdir()}


def staff_page(served_demo: ServedDemo, path: str) -> str:
    """A staff page of the served demo, logged in as `setup_demo`'s staff login."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login = f"{served_demo.base}/admin/login/"
    form = opener.open(login, timeout=60).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token is not None
    fields = {"csrfmiddlewaretoken": token.group(1), "username": "admin", "password": served_demo.password}
    sent = urllib.request.Request(login, urllib.parse.urlencode(fields).encode(), headers={"Referer": login})
    opener.open(sent, timeout=60)
    return str(opener.open(served_demo.base + path, timeout=60).read().decode())


def machine_beside_the_crowd(served_demo: ServedDemo, root: Path, messages: dict[str, str]) -> None:
    """The stance step ran with the local machine beside the simulated crowd: trained, labelling every
    item, its threshold chosen on the calibration sample; at TF-IDF's accuracy nothing is accepted from
    it, the job's page says why, and the release names each label's origin."""
    stance = messages["stance"]
    assert "machine local-stance v1 trained on " in stance and "decided stances of the train split" in stance
    assert "295 labels written; 0 items seen in training left to people" in stance
    with sqlite3.connect(root / DATABASE) as db:
        (params,) = db.execute("SELECT params FROM annotation_job WHERE id = 1").fetchone()
    routing = json.loads(params)["machine_routing"]
    assert routing["threshold"] is None and routing["calibration_items"] == 150
    assert f"nothing is accepted from the machine: {routing['reason']}" in stance
    page = html.unescape(staff_page(served_demo, "/aggregation/jobs/1/"))
    assert "Machine beside the crowd" in page and f"nothing: {routing['reason']}" in page
    lines = (root / "var" / "releases" / "demo-1" / "jsonl" / "annotations.jsonl").read_text().splitlines()
    stance_labels = [row for row in map(json.loads, lines) if row["job_id"] == 1]
    by_origin = {row["origin"]: (row["model"], row["prompt_version"]) for row in stance_labels}
    assert by_origin["crowd"] == (None, None) and by_origin["machine"] == ("tfidf+logistic", None)
    assert sum(row["origin"] == "machine" for row in stance_labels) == 295
    datasheet = (root / "var" / "releases" / "demo-1" / "datasheet.md").read_text()
    assert "job 1: local-stance v1, error at most 0.1 against the crowd's decision" in datasheet
