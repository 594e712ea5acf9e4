"""A market is a small interface (issue 25): one class per market, as narrow as counted here, with no
money method of its own (paying calls are ledger rows it makes through `send`) and no ledger row
written outside its calls; its non-paying controls are reached only from annotation.work's services,
which run in background operations, never from a view, an admin action or the API.
"""

from __future__ import annotations

import ast
import inspect
from enum import Enum
from importlib import import_module
from pathlib import Path
from types import ModuleType

from annotation.market_interface.base import Control, Market, Money
from annotation.market_interface.registry import get_market, market_names
from tests.annotation.test_market_folders import ROOT, project_files

MONEY_METHODS = ("approve", "reject", "bonus", "pay", "extend", "send_bonus")
# What the ledger engine alone calls on a paid market's `money`, beside its declared values.
MONEY_HOOKS = ("work_status", "send", "resolve", "follow_ups", "row_params")
ROW_WRITERS = {"annotation.ledger.intents", "annotation.ledger.engine", "annotation.ledger.listings"}
# The services of annotation.work (and aggregation's soft block) that take a market's controls.
CONTROLLING_SERVICES = {
    "pause_job",
    "resume_job",
    "cancel_job",
    "expire_job",
    "expire_hits",
    "extend_job",
    "block_worker",
    "unblock_worker",
    "soft_block",
    "block_flagged_workers",
}


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def names_used(tree: ast.AST) -> set[str]:
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    return names | {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    }


def is_web_entry(path: str) -> bool:
    """Views, admin actions and the API: what a web request runs."""
    name = path.rsplit("/", 1)[-1]
    return (
        name in ("views.py", "admin.py", "forms.py")
        or path.startswith(("annotation/staff/", "annotation/web/", "api/"))
        or "/views/" in path
    )


def test_no_market_has_a_money_method() -> None:
    for name in market_names():
        cls = type(get_market(name))
        assert [method for method in MONEY_METHODS if hasattr(cls, method)] == [], name
    assert not [method for method in MONEY_METHODS if hasattr(Market, method)]


def declared(cls: type) -> tuple[set[str], set[str]]:
    """(methods, declared values) that a class itself defines, public ones only."""
    own = {name: value for name, value in vars(cls).items() if not name.startswith("_")}
    methods = {name for name, value in own.items() if callable(value)}
    return methods, (set(own) | set(vars(cls).get("__annotations__", {}))) - methods


# Every name a market author must know, by the module that defines it: the class a market is, the data
# it declares, returns and reads, the vocabularies of its rows, the errors it raises and the helpers it
# calls. What the rest of the platform calls (PLATFORM) is not a market author's to learn.
MARKET_AUTHOR = {
    "annotation.market_interface.base": {
        *("Market", "Capabilities", "Control", "Listing", "SyncReport", "AssignmentReport", "Handoff"),
        *("MarketIds", "ExternalIdentity", "WorkQueue", "Money", "checked_id", "MarketCallError"),
        *("WorkerIdentityError", "MissingParamsError", "SubmitOriginError", "InvalidParamsError"),
    },
    "annotation.market_interface.money": {
        *("Row", "Records", "Finish", "Discrepancy", "RowKind", "RowState", "IssueKind"),
        *("issue", "bonus_issues", "cents"),
    },
    "annotation.market_interface.errors": {
        *("MarketError", "MarketUnavailableError", "MarketBusyError", "MarketAuthError"),
        *("MarketRejectedError", "RejectionError", "MarketConfigError", "PaymentOutcomeUnclearError"),
    },
    "annotation.market_interface.clients": {"market_client"},
    "annotation.market_interface.pages": {"task_url"},
}
PLATFORM = {
    "annotation.market_interface.base": {
        *("UnknownMarketError", "external_identity", "booking_currency", "declared_fee"),
        "reward_lines",
    },
}


def defined_names(module: ModuleType) -> set[str]:
    """The public classes and functions a module defines itself (not those it imports)."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    }


def members(value: object) -> set[str]:
    """The public names a market author meets inside one: a class's methods, values and fields, an
    enumeration's members, an error's keyword arguments; a function's none."""
    if not isinstance(value, type):
        return set()
    found = set(vars(value).get("__annotations__", {})) | set(vars(value))
    if issubclass(value, Enum):
        found |= set(value.__members__)
    if issubclass(value, Exception) and "__init__" in vars(value):
        found |= set(inspect.signature(value.__init__).parameters) - {"self", "message"}
    return {name for name in found if not name.startswith("_")}


def market_author_surface() -> dict[str, int]:
    """Each name a market author must know, counted with the names inside it."""
    return {
        name: 1 + len(members(getattr(import_module(module), name)))
        for module, names in MARKET_AUTHOR.items()
        for name in names
    }


def test_every_name_of_the_market_interface_is_counted_for_market_authors_or_the_platform() -> None:
    """A name added to the interface is counted, or named as the platform's: nothing escapes the count."""
    for module in ("base", "money", "errors", "clients", "pages"):
        name = f"annotation.market_interface.{module}"
        found = defined_names(import_module(name))
        assert found, name
        assert found == MARKET_AUTHOR.get(name, set()) | PLATFORM.get(name, set()), name


def test_a_market_is_one_class_whose_surface_is_counted() -> None:
    """What a market can implement or declare on its one class, `Market`: 11 methods and 9 values; its
    money hooks are on its one `money` object, with the values that make its calls safe."""
    methods, values = declared(Market)
    assert sorted(methods) == sorted(
        [
            *("publish", "sync", "control", "check"),
            *("balance", "fee", "reconcile", "market_ids", "after_submit"),
            *("make_blocklist", "blocklist"),
        ]
    )
    assert sorted(values) == sorted(
        [
            *("name", "crowd", "simulated", "capabilities", "money", "fee_rate", "url_params"),
            *("frame_ancestors", "currency"),
        ]
    )
    assert members(Market) == methods | values
    assert set(MONEY_HOOKS) <= members(Money) and not set(MONEY_HOOKS) & members(Market)


def test_the_whole_surface_a_market_author_must_know_is_counted() -> None:
    """Every public name a market author meets, with the names inside each (fields, methods, members,
    an error's arguments): 37 names, 178 in all. `PublishedHit` is the ledger's, `AssignmentLimitError`
    and `VerificationError` MTurk's own; what a market read of the ledger (its kinds, states, issue
    kinds, `issue`, `bonus_issues`, `cents`, the rows and records behind `Records`) is counted here
    now, where before a market imported it from the ledger uncounted."""
    surface = market_author_surface()
    assert surface["Market"] == 21 and surface["Money"] == 14 and surface["Capabilities"] == 11
    assert (len(surface), sum(surface.values())) == (37, 178)


def test_a_paid_market_makes_its_own_calls_and_one_that_pays_nobody_implements_no_money_hook() -> None:
    paid = {name for name in market_names() if type(get_market(name)).money is not None}
    assert paid == {"mturk", "prolific"} and {"inhouse", "simulated"} <= set(market_names())
    for name in market_names():
        market = type(get_market(name))
        if market.money is None:
            own = {hook for cls in market.__mro__ if cls is not Market for hook in vars(cls)}
            assert own & set(MONEY_HOOKS) == set(), name
        else:
            assert isinstance(market.money, Money) and "send" in vars(type(market.money)), name


def test_each_market_folder_holds_one_market_class() -> None:
    """One `Market` subclass per folder, its work and its money together."""
    found: dict[str, list[str]] = {}
    for folder in sorted(
        p for p in (ROOT / "annotation" / "markets").iterdir() if (p / "__init__.py").exists()
    ):
        for path in folder.glob("*.py"):
            classes = [
                node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)
            ]
            found.setdefault(folder.name, []).extend(
                node.name for node in classes if any(ast.unparse(base) == "Market" for base in node.bases)
            )
    assert found and all(len(classes) == 1 for classes in found.values()), found


def test_every_declared_control_is_one_the_interface_names() -> None:
    assert {"inhouse", "simulated", "mturk", "prolific"} <= set(market_names())
    for name in market_names():
        assert get_market(name).capabilities.controls <= set(Control), name


def test_no_market_folder_writes_a_ledger_row_outside_its_calls() -> None:
    """A market describes listings; the ledger and work record the rows. A market's calls (calls.py)
    may record the rows a confirmed row leads to (its follow-ups), as the engine asks it to."""
    writers = {}
    for path in (ROOT / "annotation" / "markets").rglob("*.py"):
        if path.name == "calls.py":
            continue
        found = imported_modules(ast.parse(path.read_text())) & ROW_WRITERS
        if found:
            writers[relative(path)] = sorted(found)
    assert writers == {}


def test_market_controls_are_taken_only_by_work_services() -> None:
    callers = []
    for path in project_files(".py"):
        where = relative(path)
        if where.startswith(("annotation/work/", "annotation/markets/", "annotation/market_interface/")):
            continue
        tree = ast.parse(path.read_text())
        if "annotation.market_interface.registry.control" in imported_modules(tree) or any(
            isinstance(node, ast.Attribute) and node.attr == "control" for node in ast.walk(tree)
        ):
            callers.append(where)
    assert callers == []


def test_no_view_admin_action_or_api_reaches_a_market_control_itself() -> None:
    """They start a background operation (annotation.work.market_actions) instead."""
    reaching = {
        relative(path): sorted(names_used(ast.parse(path.read_text())) & CONTROLLING_SERVICES)
        for path in project_files(".py")
        if is_web_entry(relative(path))
    }
    assert {path: found for path, found in reaching.items() if found} == {}


def test_the_checks_find_what_they_look_for() -> None:
    view = ast.parse("from annotation.work import block_worker\n\ndef v(r):\n    block_worker(1, 'x')\n")
    assert names_used(view) & CONTROLLING_SERVICES == {"block_worker"}
    caller = ast.parse("from annotation.market_interface.registry import control\n")
    assert "annotation.market_interface.registry.control" in imported_modules(caller)
    market = ast.parse("from annotation.ledger import intents\n")
    assert "annotation.ledger.intents" in imported_modules(market) & ROW_WRITERS
    assert is_web_entry("aggregation/views.py") and is_web_entry("annotation/staff/markets.py")
    assert not is_web_entry("annotation/work/market_actions.py")
