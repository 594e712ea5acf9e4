"""The import contracts in pyproject.toml hold for the tree, and they do catch a violation; and nothing
outside tests/ imports `tests`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The packages the contracts name (pyproject.toml), so a new app is copied too.
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
PACKAGES = CONFIG["root_packages"]
PURE_CORES = next(contract for contract in CONFIG["contracts"] if contract["id"] == "pure-cores")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages and their contracts, to break on purpose."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc", "*.json"))
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_tree_keeps_every_import_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_lower_layer_importing_a_higher_one_breaks_the_layers(tree: Path) -> None:
    (tree / "corpus" / "reaches_up.py").write_text("from export import services\n")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "corpus.reaches_up -> export.services" in result.stdout


def test_a_pure_core_importing_django_breaks_its_contract(tree: Path) -> None:
    agreement = tree / "aggregation" / "agreement.py"
    agreement.write_text(agreement.read_text() + "\nimport django.db  # noqa\n")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "aggregation.agreement is not allowed to import django" in result.stdout


def test_one_market_importing_another_breaks_their_independence(tree: Path) -> None:
    (tree / "annotation" / "markets" / "prolific" / "borrow.py").write_text(
        "from annotation.markets.mturk import states\n"
    )
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "annotation.markets.prolific is not allowed to import annotation.markets.mturk" in result.stdout


def test_every_pure_core_imports_without_django_in_a_fresh_interpreter() -> None:
    """What the contract cannot see: a package `__init__` run on the way in that imports a framework."""
    assert len(PURE_CORES["source_modules"]) > 20
    code = (
        "import importlib, json, sys\n"
        "loaded = {}\n"
        f"for name in {PURE_CORES['source_modules']!r}:\n"
        "    before = set(sys.modules)\n"
        "    importlib.import_module(name)\n"
        "    loaded[name] = sorted({m.split('.')[0] for m in set(sys.modules) - before})\n"
        "print(json.dumps(loaded))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    forbidden = set(PURE_CORES["forbidden_modules"])
    frameworks = {name: sorted(forbidden & set(found)) for name, found in json.loads(done.stdout).items()}
    assert {name: found for name, found in frameworks.items() if found} == {}


def test_a_room_inside_annotation_importing_a_higher_one_breaks_annotations_layers(tree: Path) -> None:
    (tree / "annotation" / "ledger" / "reaches_up.py").write_text("from annotation.work import jobs\n")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "annotation.ledger is not allowed to import annotation.work" in result.stdout
    assert "annotation.ledger.reaches_up -> annotation.work.jobs" in result.stdout


def test_the_market_interface_importing_a_market_breaks_annotations_layers(tree: Path) -> None:
    (tree / "annotation" / "market_interface" / "errors.py").write_text(
        (ROOT / "annotation" / "market_interface" / "errors.py").read_text()
        + "\nfrom annotation.markets.mturk import spec\n"
    )
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "annotation.market_interface.errors -> annotation.markets.mturk.spec" in result.stdout


def test_a_type_only_import_of_the_ledger_in_the_market_interface_breaks_annotations_layers(
    tree: Path,
) -> None:
    """The interface names nothing of the ledger, not even in a type hint: type-only imports count."""
    (tree / "annotation" / "market_interface" / "reaches_up.py").write_text(
        "from typing import TYPE_CHECKING\n\n"
        "if TYPE_CHECKING:\n    from annotation.ledger.models import LedgerEntry\n"
    )
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "annotation.market_interface is not allowed to import annotation.ledger" in result.stdout
    assert "annotation.market_interface.reaches_up -> annotation.ledger.models" in result.stdout


def test_a_market_importing_the_ledger_breaks_its_contract(tree: Path) -> None:
    """A market reads its rows through the interface's `Row` and `Records`, never the ledger's models."""
    calls = tree / "annotation" / "markets" / "mturk" / "calls.py"
    calls.write_text(calls.read_text() + "\nfrom annotation.ledger.models import LedgerEntry  # noqa\n")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "annotation.markets is not allowed to import annotation.ledger" in result.stdout
    assert "annotation.markets.mturk.calls -> annotation.ledger.models" in result.stdout


@pytest.mark.parametrize("shared", ["rigs.databases", "bench.load"])
def test_an_app_importing_the_rigs_or_a_benchmark_breaks_its_contract(tree: Path, shared: str) -> None:
    """Tests and benchmarks stand the apps up: an app that reaches back into their equipment is caught."""
    (tree / "operations" / "reaches_out.py").write_text(f"def helper():\n    import {shared}  # noqa\n")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert f"operations.reaches_out -> {shared.split('.')[0]}" in result.stdout


# Folders that hold no code of the project's own.
NOT_SOURCE = {"tests", "node_modules", "__pycache__"}
# An import of `tests` at any depth: in the code, or in code a module hands a child interpreter.
IMPORTS_TESTS = re.compile(r"^[ \t]*(?:from|import)[ \t]+(tests(?:\.\w+)*)\b", re.MULTILINE)


def imports_of_tests(root: Path) -> list[str]:
    """Every import of `tests` in a Python file of `root` outside tests/, as "path:line module"."""
    found: list[str] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(
            name for name in subfolders if name not in NOT_SOURCE and not name.startswith(".")
        )
        for path in sorted(Path(folder) / name for name in files if name.endswith(".py")):
            text = path.read_text()
            for match in IMPORTS_TESTS.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(root)}:{line} {match.group(1)}")
    return found


def test_nothing_outside_tests_imports_tests() -> None:
    """The bench, the demo and the apps stand alone: what they share with tests lives outside tests/."""
    assert imports_of_tests(ROOT) == []


def test_an_import_of_tests_outside_tests_is_found(tmp_path: Path) -> None:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "site.py").write_text(
        "def seed():\n    from tests.annotation.factories import make_corpus\n    import tests.deploy\n"
        'CHILD = """\nfrom tests.security.fault_rig import run_scenario\n"""\n'
        "# the latest tests import nothing\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "helper.py").write_text("from tests.annotation import factories\n")
    assert imports_of_tests(tmp_path) == [
        "bench/site.py:2 tests.annotation.factories",
        "bench/site.py:3 tests.deploy",
        "bench/site.py:5 tests.security.fault_rig",
    ]


def test_a_service_importing_its_apps_tasks_inside_a_function_breaks_tasks_over_services(tree: Path) -> None:
    """The circle services <-> tasks, even through an import hidden in a function body."""
    services = tree / "search" / "services.py"
    services.write_text(
        services.read_text() + "\n\ndef _queue() -> None:\n    from search.tasks import sync_index_task\n"
    )
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "search.services is not allowed to import search.tasks" in result.stdout
