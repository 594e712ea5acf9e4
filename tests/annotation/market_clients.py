"""A test's own market client, chosen the way the platform chooses one: through MARKET_CLIENTS.

`market_clients(mturk=client)` points the setting at `installed_mturk` for the block, which hands
back the client the test built (a stubbed boto3 client, a fake Prolific session), as a test reads
Django's locmem outbox.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.test import override_settings

_installed: dict[str, Any] = {}


def installed_mturk() -> Any:
    return _installed["mturk"]


def installed_prolific() -> Any:
    return _installed["prolific"]


@contextmanager
def market_clients(**clients: Any) -> Iterator[None]:
    """Use these clients (`mturk=`, `prolific=`) inside the block."""
    previous = dict(_installed)
    _installed.update(clients)
    chosen = {name: f"{__name__}.installed_{name}" for name in clients}
    try:
        with override_settings(MARKET_CLIENTS={**settings.MARKET_CLIENTS, **chosen}):
            yield
    finally:
        _installed.clear()
        _installed.update(previous)
