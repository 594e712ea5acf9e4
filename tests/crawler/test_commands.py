"""`manage.py parse_page` (no network, no database) and `scrapy check` (offline spider contracts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.crawler.conftest import BUILT, IDEBATE_PAGES, REPO

SMOKERS = IDEBATE_PAGES / "addiction-health-general-healthcare-house-would-deny-smokers-access-state.html"


def test_parse_page_prints_one_json_debate_per_line_without_a_database() -> None:
    # No django_db mark: any database query here would fail the test.
    out, err = StringIO(), StringIO()
    files = [
        str(SMOKERS),
        str(BUILT / "bad" / "idebate-no-points.html"),
        str(BUILT / "idebate" / "net-debate.html"),
    ]
    call_command("parse_page", "idebate", *files, stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    debate = json.loads(lines[0])
    assert set(debate) == {"url", "motion", "intro", "points"}
    assert debate["motion"] == "This house would deny smokers access to state healthcare."
    assert set(debate["points"][0]) == {"side", "headline", "body", "counterpoint"}
    assert debate["points"][0]["side"] == "pro"
    assert debate["points"][-1]["side"] == "con"
    assert "no_points" in err.getvalue()


def test_parse_page_fails_when_no_page_holds_a_debate() -> None:
    with pytest.raises(CommandError):
        call_command(
            "parse_page",
            "idebate",
            str(BUILT / "bad" / "login-wall.html"),
            stdout=StringIO(),
            stderr=StringIO(),
        )


def test_scrapy_check_runs_every_spiders_contracts_offline() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "check"],
        cwd=REPO,
        env={**os.environ, "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Ran 11 contracts" in done.stderr
