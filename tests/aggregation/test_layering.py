"""Aggregation is generic machinery: it names no task type, task types never import it, and its pure
core (with the declarations it reads) imports no Django, Celery, Scrapy or boto3."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN_SLUG = re.compile(
    r'"(stance|evidence_verification|paraphrase_verification|paraphrase_writing|topic_tagging)"'
)
PURE = (
    "aggregation.agreement",
    "aggregation.label_models",
    "aggregation.dawid_skene",
    "aggregation.mace",
    "aggregation.labels",
    "aggregation.responses",
    "aggregation.rules",
    "aggregation.topics",
    "aggregation.policy",
    "annotation.task_types.rules",
    "annotation.task_types.decisions",
    "annotation.task_types.builtin_rules",
)
FRAMEWORKS = {"django", "celery", "scrapy", "boto3", "botocore"}


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


def test_the_pure_core_and_the_declarations_it_reads_import_no_framework():
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(PURE)!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert FRAMEWORKS & set(json.loads(done.stdout)) == set()
