"""Long commands' progress: tqdm bars on a terminal, one summary line per stage otherwise."""

from __future__ import annotations

import re
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO

import pytest

from config.progress import QUIET, Bars, Lines, shown_on


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


def test_a_pipe_gets_one_line_per_stage_with_its_count() -> None:
    out = StringIO()
    progress = shown_on(out)
    assert isinstance(progress, Lines)
    with progress.stage("rows", unit="rows") as done:
        for _ in range(7):
            done(1)
    with progress.stage("load", total=10, unit="items") as done:
        done(4)
    with progress.stage("check"):
        pass
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"rows: 7 rows in \d+\.\d s", lines[0])
    assert re.fullmatch(r"load: 4 of 10 items in \d+\.\d s", lines[1])
    assert re.fullmatch(r"check: done in \d+\.\d s", lines[2])


def test_a_terminal_gets_a_bar_that_reaches_its_total() -> None:
    out = Terminal()
    progress = shown_on(out)
    assert isinstance(progress, Bars)
    with progress.stage("index claims", total=3, unit="documents") as done:
        for _ in range(3):
            done(1)
    assert "\r" in out.getvalue() and "index claims: 100%" in out.getvalue()
    assert "3/3" in out.getvalue()


def test_a_failed_stage_reports_nothing_as_done() -> None:
    out = StringIO()
    with pytest.raises(RuntimeError), shown_on(out).stage("write"):
        raise RuntimeError("disk full")
    assert out.getvalue() == ""


def test_quiet_reports_nowhere() -> None:
    out = StringIO()
    with redirect_stdout(out), redirect_stderr(out), QUIET.stage("anything", total=2) as done:
        done(2)
    assert out.getvalue() == ""
