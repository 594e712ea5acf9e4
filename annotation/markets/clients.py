"""The market clients the platform uses, built once from settings; tests put fakes in their place.

Each market folder builds its own client (`mturk_client`, `prolific_client`) through `market_client`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

_overrides: dict[str, Any] = {}
_built: dict[str, Any] = {}


def market_client(name: str, build: Callable[[], T], check: Callable[[], None] | None = None) -> T:
    """The client for market `name`: a fake installed by `market_clients`, else built once.

    `check` runs before every real use (not only the first), so switching a market off in settings
    stops a client already built.
    """
    if name in _overrides:
        return _overrides[name]  # type: ignore[no-any-return]
    if check is not None:
        check()
    if name not in _built:
        _built[name] = build()
    return _built[name]  # type: ignore[no-any-return]


@contextmanager
def market_clients(**clients: Any) -> Iterator[None]:
    """Use these clients (`mturk=`, `prolific=`, …) inside the block: for tests and the benchmark."""
    previous = dict(_overrides)
    _overrides.update(clients)
    try:
        yield
    finally:
        _overrides.clear()
        _overrides.update(previous)
