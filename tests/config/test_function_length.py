"""No function of the project is longer than the house limit (house style rule 13,
docs/design/house-style.md: about 40 lines a
function), counted from its first decorator to its last line, nested functions and methods included."""

from __future__ import annotations

import ast
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 40
# Folders that hold no code of the project's own, or only generated code.
NOT_SOURCE = {"tests", "migrations", "node_modules", "__pycache__"}


def project_files(root: Path) -> list[Path]:
    """Every Python file of `root` outside tests, migrations and hidden folders (.venv, .git)."""
    found: list[Path] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(
            name for name in subfolders if name not in NOT_SOURCE and not name.startswith(".")
        )
        found += sorted(Path(folder) / name for name in files if name.endswith(".py"))
    return found


def long_functions(path: Path, root: Path) -> dict[str, int]:
    """The functions of one file longer than LIMIT, as "path:name" → length in lines."""
    tree = ast.parse(path.read_text(), filename=str(path))
    relative = path.relative_to(root).as_posix()
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            length = (node.end_lineno or node.lineno) - first + 1
            if length > LIMIT:
                found[f"{relative}:{node.name}"] = length
    return found


def too_long(root: Path) -> dict[str, int]:
    return {key: n for path in project_files(root) for key, n in long_functions(path, root).items()}


def test_no_function_is_longer_than_the_house_limit() -> None:
    over = too_long(ROOT)
    assert not over, f"functions over {LIMIT} lines (split them by concept): " + ", ".join(
        f"{key} ({n} lines)" for key, n in sorted(over.items())
    )


def statements(count: int, indent: int = 4) -> str:
    return "".join(f"{' ' * indent}x{i} = {i}\n" for i in range(count))


def test_a_long_function_is_found_counting_its_decorators(tmp_path: Path) -> None:
    (tmp_path / "app" / "migrations").mkdir(parents=True)
    (tmp_path / "app" / "views.py").write_text(
        f"@first\n@second\ndef decorated():\n{statements(38)}"  # 2 decorators, def, 38 lines: 41
        f"def plain():\n{statements(39)}"  # def and 39 lines: 40, the limit itself
        f"class Page:\n    async def method(self):\n{statements(76, indent=8)}"  # a method: 77
    )
    (tmp_path / "app" / "migrations" / "0001_initial.py").write_text(f"def generated():\n{statements(80)}")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_views.py").write_text(f"def test_long():\n{statements(80)}")
    assert too_long(tmp_path) == {"app/views.py:decorated": 41, "app/views.py:method": 77}
