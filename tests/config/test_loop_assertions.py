"""No test keeps every assertion inside a loop over something that may be empty: such a test passes
when the loop runs over nothing. A test that loops also asserts, outside the loop, what it loops over.

A loop over values written in the test itself (a tuple of URLs, ``range(5)``, a module's constant
tuple) runs over exactly those and needs no such assertion.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
DISPLAYS = (ast.List, ast.Tuple, ast.Set)


def written_out(node: ast.expr, constants: set[str]) -> bool:
    """Whether a loop over `node` surely runs: a non-empty display, a range of literal numbers that
    is not empty, or a module-level name bound to a non-empty display."""
    if isinstance(node, DISPLAYS):
        return bool(node.elts) and not any(isinstance(element, ast.Starred) for element in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and None not in node.keys  # None: a ** unpacking, maybe empty
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        bounds = [arg.value for arg in node.args if isinstance(arg, ast.Constant) and type(arg.value) is int]
        return len(bounds) == len(node.args) and bool(range(*bounds))
    return isinstance(node, ast.Name) and node.id in constants


def module_constants(tree: ast.Module) -> set[str]:
    """Names the module binds, once, to a non-empty display."""
    bound = [
        (target.id, statement.value)
        for statement in tree.body
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    ]
    names = [name for name, _ in bound]
    return {name for name, value in bound if names.count(name) == 1 and written_out(value, set())}


def assertions(node: ast.AST, constants: set[str], in_loop: bool = False) -> list[bool]:
    """For each assert statement under `node` (nested functions and classes aside): whether it sits
    inside a for loop that may run over nothing."""
    found: list[bool] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, SCOPES):
            continue
        if isinstance(child, ast.Assert):
            found.append(in_loop)
        may_be_empty = isinstance(child, ast.For | ast.AsyncFor) and not written_out(child.iter, constants)
        found += assertions(child, constants, in_loop or may_be_empty)
    return found


def loop_only_tests(source: str, name: str) -> list[str]:
    """The tests of one file whose every assertion is inside a loop that may run over nothing."""
    tree = ast.parse(source, filename=name)
    constants = module_constants(tree)
    return [
        f"{name}:{node.lineno} {node.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test")
        and (found := assertions(node, constants))
        and all(found)
    ]


def test_no_test_keeps_all_its_assertions_inside_a_loop_that_may_be_empty() -> None:
    files = sorted(TESTS.rglob("test_*.py"))
    assert len(files) > 100  # the walk found the suite
    found = [hit for path in files for hit in loop_only_tests(path.read_text(), str(path.relative_to(TESTS)))]
    assert not found, "assert what the loop runs over, outside it: " + ", ".join(found)


SAMPLE = """
URLS = ("/a", "/b")

def test_rows(rows):
    for row in rows:
        assert row.ok

def test_rows_counted(rows):
    assert len(rows) == 3
    for row in rows:
        assert row.ok

def test_written_out(client):
    for url in URLS:
        assert client.get(url)
    for seed in range(5):
        for extra in ("x", "y"):
            assert seed

def test_empty_range():
    for seed in range(0):
        assert seed

def test_nested(rows):
    for url in ("/a",):
        for row in rows:
            assert row

def test_no_assertion(rows):
    for row in rows:
        row.check()

def test_helper_asserts_elsewhere(rows):
    def check(row):
        assert row
    for row in rows:
        check(row)
"""


def test_a_test_whose_assertions_are_all_in_a_loop_that_may_be_empty_is_found() -> None:
    assert loop_only_tests(SAMPLE, "sample.py") == [
        "sample.py:4 test_rows",
        "sample.py:20 test_empty_range",
        "sample.py:24 test_nested",
    ]
