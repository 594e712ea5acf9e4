"""The market registry: one setting, `ANNOTATION_MARKETS` (name → dotted path of a Market class).

A market added there works end to end: jobs pick it by name, the ledger engine has it make its
rows' calls, reconciliation asks it what differs, background operations take its declared controls,
and the worker pages read its URL parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from django.conf import settings

from annotation.market_interface.base import Control, Market, MarketIds, UnknownMarketError

if TYPE_CHECKING:
    from annotation.models import Hit, Job, Worker


def market_paths() -> dict[str, str]:
    return dict(settings.ANNOTATION_MARKETS)


def market_names() -> list[str]:
    return list(market_paths())


@cache
def _market_class(path: str) -> type[Market]:
    module_name, _, class_name = path.rpartition(".")
    cls: type[Market] = getattr(import_module(module_name), class_name)
    return cls


def get_market(name: str) -> Market:
    path = market_paths().get(name)
    if path is None:
        raise UnknownMarketError(f"unknown market {name!r}; known: {sorted(market_paths())}")
    try:
        cls = _market_class(path)
    except (ImportError, AttributeError, ValueError) as error:
        raise UnknownMarketError(f"market {name!r} is not installed ({error})") from error
    return cls()


def is_simulated(name: str) -> bool:
    """Whether market `name` is a simulated crowd (false for a name that is not installed)."""
    return name in market_paths() and get_market(name).simulated


def control(market: str, action: Control, target: Job | Hit | Worker, reason: str = "") -> str:
    """Take a non-paying action at a market that declares it (a market that does not has nothing to
    do); returns why nothing was done, "" when done. Called from annotation.work's services, which
    run in background operations (annotation.work.market_actions), never in a web request."""
    installed = get_market(market)
    if action not in installed.capabilities.controls:
        return ""
    return installed.control(action, target, reason)


def market_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in market_paths()]


def market_ids(params: Mapping[str, str]) -> MarketIds | None:
    """The market identity in a request's parameters; None when no market's parameters are present."""
    for name in market_names():
        ids = get_market(name).market_ids(params)
        if ids is not None:
            return ids
    return None


def worker_sites() -> list[str]:
    """The sites that may show our worker pages in a frame: those each installed market declares."""
    return [site for name in market_names() for site in get_market(name).frame_ancestors]


def from_market(params: Mapping[str, str]) -> bool:
    """Whether a request names any market's parameter (complete or not: `market_ids` judges that)."""
    return any(params.get(param) for name in market_names() for param in get_market(name).url_params)
