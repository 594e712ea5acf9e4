"""Aggregation is generic machinery: it names no task type and task types never import it. Its pure
core (with the declarations it reads) is listed once, in pyproject.toml's pure-cores contract, and
tests/config/test_import_contracts.py imports each of those modules without Django."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN_SLUG = re.compile(
    r'"(stance|evidence_verification|paraphrase_verification|paraphrase_writing|topic_tagging)"'
)


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_no_aggregation_module_branches_on_a_task_type_by_name():
    modules = sorted((ROOT / "aggregation").glob("*.py"))
    assert len(modules) > 10
    named = {
        f"{path.name}:{number}": line.strip()
        for path in modules
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if BUILT_IN_SLUG.search(line)
    }
    assert named == {}


def test_task_types_never_import_aggregation():
    modules = sorted((ROOT / "annotation" / "task_types").glob("*.py"))
    upward = {
        path.name: sorted(m for m in imported_modules(path) if m.split(".")[0] == "aggregation")
        for path in modules
    }
    assert {name: found for name, found in upward.items() if found} == {}
