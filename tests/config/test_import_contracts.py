"""The import contracts in pyproject.toml hold for the tree, and they do catch a violation."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The packages the contracts name (pyproject.toml), so a new app is copied too.
PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
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
