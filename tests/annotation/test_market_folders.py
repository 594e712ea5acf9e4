"""A market lives in its folder: nothing outside annotation/markets/ branches on a market's name, and
no MTurk host is named outside annotation/markets/mturk/ (like aggregation, which names no task type).

Choosing a market by name (`market="prolific"`) is fine; comparing with one is not: ask the
market's declared data (`Capabilities`, `simulated`, `frame_ancestors`) instead.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKET = r'"(mturk|prolific|simulated|inhouse)"'
BRANCHES_ON_A_MARKET = re.compile(rf"(==|!=) *{MARKET}|{MARKET} *(==|!=|in )")
MTURK_HOST = re.compile(r"mturk\.com|mturk-requester|amazonaws\.com")
SKIPPED = {".venv", ".git", "node_modules", "tests", "migrations", "__pycache__"}


def project_files(*suffixes: str) -> list[Path]:
    """The project's own files with these suffixes: no tests, migrations or installed packages."""
    found: list[Path] = []
    for path in ROOT.iterdir():
        if path.name in SKIPPED or path.name.startswith("."):
            continue
        candidates = path.rglob("*") if path.is_dir() else [path]
        found += [
            file
            for file in candidates
            if file.suffix in suffixes and not SKIPPED & set(file.relative_to(ROOT).parts)
        ]
    return found


def lines_matching(pattern: re.Pattern[str], files: list[Path], outside: str) -> dict[str, str]:
    return {
        f"{file.relative_to(ROOT)}:{number}": line.strip()
        for file in files
        if not file.relative_to(ROOT).as_posix().startswith(outside)
        for number, line in enumerate(file.read_text(errors="replace").splitlines(), start=1)
        if pattern.search(line)
    }


def test_no_module_outside_the_markets_branches_on_a_market_name() -> None:
    modules = project_files(".py")
    assert len(modules) > 100
    assert lines_matching(BRANCHES_ON_A_MARKET, modules, "annotation/markets/") == {}


def test_no_mturk_host_is_named_outside_the_mturk_folder() -> None:
    files = project_files(".py", ".html", ".toml", ".yml", ".yaml", ".txt", ".example", ".env")
    assert lines_matching(MTURK_HOST, files, "annotation/markets/mturk/") == {}


def test_the_checks_find_what_they_look_for() -> None:
    assert BRANCHES_ON_A_MARKET.search('if params["market"] == "simulated":')
    assert BRANCHES_ON_A_MARKET.search('"prolific" in names')
    assert BRANCHES_ON_A_MARKET.search('create_job("stance", market="prolific")') is None
    assert MTURK_HOST.search('DEFAULT = ("https://worker.mturk.com",)')
