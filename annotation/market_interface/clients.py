"""The market clients the platform uses, chosen in settings as Django chooses its mail backend.

`MARKET_CLIENTS` maps a market's name to the dotted path of a function returning its client: a fake
beside the real client (annotation/markets/mturk/fake.py, annotation/markets/prolific/fake.py), or a
test's own. A market not named there
gets its real client, built once. Each market folder builds its client (`mturk_client`,
`prolific_client`) through `market_client`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.utils.module_loading import import_string

T = TypeVar("T")

_built: dict[str, Any] = {}


def market_client(name: str, build: Callable[[], T], check: Callable[[], None] | None = None) -> T:
    """The client for market `name`: the one `MARKET_CLIENTS` names, else the real one built once.

    `check` runs before every real use (not only the first), so switching a market off in settings
    stops a client already built. A chosen client is asked for on every use: it keeps its own state.
    """
    chosen = settings.MARKET_CLIENTS.get(name)
    if chosen:
        client: T = import_string(chosen)()
        return client
    if check is not None:
        check()
    if name not in _built:
        _built[name] = build()
    return _built[name]  # type: ignore[no-any-return]
