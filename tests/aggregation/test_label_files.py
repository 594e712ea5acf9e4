"""Labels files as anyone may hand them over, read by both commands that take them: repeated
(worker, item) rows, a huge label, bytes that are not UTF-8, an endless line, one item, blank names."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from aggregation.label_files import MAX_LINE_BYTES

COMMANDS = {
    "aggregate_labels": ["--labels", "yes,no"],
    "replay_labels": ["--labels", "yes,no", "--policy", "fixed"],
}
# One worker says "no" five times over; two others say "yes" once each.
STUFFED = "item,worker,label\n" + "a,w1,yes\na,w2,yes\n" + "a,w3,no\n" * 5 + "b,w1,no\nb,w2,no\nb,w3,no\n"


def run(command: str, source: Path, tmp_path: Path, *extra: str) -> tuple[str, str]:
    """The output file's text and what the command said on stderr."""
    out, err = tmp_path / "out.csv", io.StringIO()
    call_command(command, str(source), *COMMANDS[command], "--out", str(out), *extra, stderr=err)
    return out.read_text(), err.getvalue()


def write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "labels.csv"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@pytest.mark.parametrize("command", list(COMMANDS))
def test_repeated_worker_item_rows_are_refused_with_their_lines(tmp_path: Path, command: str) -> None:
    with pytest.raises(CommandError, match=r"5 rows .* lines 4, 5, 6, 7, 8: .*--duplicates first"):
        run(command, write(tmp_path, STUFFED), tmp_path)
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("keep", ["first", "last"])
def test_duplicates_first_or_last_counts_the_worker_once(tmp_path: Path, command: str, keep: str) -> None:
    text, _ = run(command, write(tmp_path, STUFFED), tmp_path, "--duplicates", keep)

    rows = dict(line.split(",")[:2] for line in text.splitlines()[1:])
    assert rows == {"a": "yes", "b": "no"}  # 2 yes against one no; counted five times, no would win


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_unknown_label_is_quoted_in_part(tmp_path: Path, command: str) -> None:
    huge = "x" * 200_000
    source = write(tmp_path, f"item,worker,label\na,w1,yes\na,w2,{huge}\n")

    with pytest.raises(CommandError, match=r"line 3: label.*'x{40}'… \(200000 characters\)") as refused:
        run(command, source, tmp_path)
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("command", list(COMMANDS))
def test_bytes_that_are_not_utf8_are_named_by_their_line(tmp_path: Path, command: str) -> None:
    source = write(tmp_path, b"item,worker,label\na,w1,yes\nb\xff\xfe,w2,no\n")

    with pytest.raises(CommandError, match="line 3 is not UTF-8 text"):
        run(command, source, tmp_path)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_line_past_the_limit_is_refused_by_its_number(tmp_path: Path, command: str) -> None:
    source = write(tmp_path, "item,worker,label\na,w1,yes\n" + "b" * (MAX_LINE_BYTES + 1) + ",w2,no\n")

    with pytest.raises(CommandError, match=f"line 3 is longer than {MAX_LINE_BYTES:,} bytes"):
        run(command, source, tmp_path)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_one_item_and_blank_item_names_get_a_warning(tmp_path: Path, command: str) -> None:
    _, said = run(command, write(tmp_path, "item,worker,label\na,w1,yes\na,w2,yes\n"), tmp_path)
    assert "warning: the file holds one item ('a')" in said

    blank = "item,worker,label\na,w1,yes\na,w2,yes\n ,w1,no\n ,w2,no\n"
    _, said = run(command, write(tmp_path, blank), tmp_path)
    assert "warning: 1 item(s) have a blank name" in said
