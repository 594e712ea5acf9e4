"""Every file the platform writes is written whole: with the disk full (a file-size limit, RLIMIT_FSIZE)
or the folder missing, each writer stops with a clear error and the previous file is as it was."""

from __future__ import annotations

import os
import re
import resource
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from config.whole_files import WriteError, whole_file
from tests.security.test_csv_cells import _labels

PROJECT = Path(__file__).resolve().parents[2]
PREVIOUS = "the previous result\n"
# The label commands need no database: each runs as its own process, its files limited.
LABEL_COMMANDS = {
    "aggregate_labels": ["--labels", "yes,no"],
    "replay_labels": ["--labels", "yes,no", "--policy", "fixed"],
}


def _limit_files(size: int) -> None:
    """Writes past `size` bytes of any file fail (EFBIG) as on a full disk; pipes are not files."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


@contextmanager
def disk_full_after(size: int) -> Iterator[None]:
    """`_limit_files` for this process, for the block only."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    ignored = signal.getsignal(signal.SIGXFSZ)
    _limit_files(size)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, ignored)


def run_limited(command: str, source: Path, out: Path, size: int) -> subprocess.CompletedProcess[str]:
    """`manage.py command` in a child whose files cannot grow past `size` bytes."""
    args = [sys.executable, "manage.py", command, str(source), *LABEL_COMMANDS[command], "--out", str(out)]
    env = {**os.environ, "SECRET_KEY": secrets.token_urlsafe(50)}  # no key file to write at start-up
    return subprocess.run(
        args, cwd=PROJECT, env=env, capture_output=True, text=True, check=False,
        preexec_fn=lambda: _limit_files(size),
    )  # fmt: skip


@pytest.mark.parametrize("command", list(LABEL_COMMANDS))
def test_a_full_disk_leaves_the_previous_output_and_says_so(tmp_path: Path, command: str) -> None:
    source, out = _labels(tmp_path), tmp_path / "out.csv"
    out.write_text(PREVIOUS)

    ran = run_limited(command, source, out, size=16)

    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr
    assert re.search(r"cannot write .*out\.csv: File too large; the previous file is intact", ran.stderr)
    assert out.read_text() == PREVIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.csv", "out.csv"]  # no partial file left
    assert run_limited(command, source, out, size=1 << 20).returncode == 0 and out.read_text() != PREVIOUS


@pytest.mark.parametrize("command", list(LABEL_COMMANDS))
def test_a_missing_folder_is_a_clear_error(tmp_path: Path, command: str) -> None:
    source, out = _labels(tmp_path), tmp_path / "m" / "o.csv"
    with pytest.raises(CommandError, match=r"there is no folder .*/m$"):
        call_command(command, str(source), *LABEL_COMMANDS[command], "--out", str(out))


@pytest.mark.django_db
@pytest.mark.parametrize("command", ["export_mturk_batch", "export_counter_speech"])
def test_a_full_disk_leaves_the_previous_export(tmp_path: Path, settings: Any, command: str) -> None:
    from annotation.work.jobs import create_job
    from annotation.work.mturk_batches import import_mturk_template
    from tests.annotation.factories import crawled_counter_speech_questions
    from tests.annotation.test_mturk_batches import EMOTION, EMOTION_BATCH

    settings.WORKER_PSEUDONYM_KEY = "a-test-key-of-enough-length"
    if command == "export_mturk_batch":
        job = import_mturk_template(EMOTION, EMOTION_BATCH, "emotion")
    else:
        job = create_job("counter_speech", {"questions": crawled_counter_speech_questions(limit=2)})
    out = tmp_path / "export.csv"
    out.write_text(PREVIOUS)

    with (
        pytest.raises(CommandError, match="File too large; the previous file is intact"),
        disk_full_after(16),
    ):
        call_command(command, str(job.pk), "--out", str(out))

    assert out.read_text() == PREVIOUS and len(list(tmp_path.iterdir())) == 1


def _half_then_fail(out: Path) -> None:
    with whole_file(out) as handle:
        handle.write("half")
        raise ZeroDivisionError


def test_an_error_inside_the_block_leaves_the_previous_file(tmp_path: Path) -> None:
    out = tmp_path / "f.txt"
    out.write_text(PREVIOUS)

    with pytest.raises(ZeroDivisionError):
        _half_then_fail(out)

    assert out.read_text() == PREVIOUS and len(list(tmp_path.iterdir())) == 1


def test_a_whole_write_replaces_the_file_with_the_usual_permissions(tmp_path: Path) -> None:
    out = tmp_path / "f.txt"
    with whole_file(out) as handle:
        handle.write("new")
    mask = os.umask(0)
    os.umask(mask)
    assert out.read_text() == "new" and out.stat().st_mode & 0o777 == 0o666 & ~mask
    with pytest.raises(WriteError, match="there is no folder"), whole_file(tmp_path / "no" / "f.txt"):
        pass
