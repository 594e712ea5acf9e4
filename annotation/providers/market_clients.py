"""The market clients the platform uses, built from settings; tests put fakes in their place.

MTurk's client comes from annotation.providers.mturk (boto3 stays there); Prolific's from prolific.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

from annotation.providers.market_errors import MarketConfigError
from annotation.providers.mturk import MTurkClient
from annotation.providers.prolific import ProlificClient

_overrides: dict[str, Any] = {}
_built: dict[str, Any] = {}


def mturk_client() -> MTurkClient:
    if "mturk" in _overrides:
        return _overrides["mturk"]  # type: ignore[no-any-return]
    if not settings.MTURK_ENABLED:
        raise MarketConfigError("MTurk is not enabled (MTURK_ENABLED)")
    if "mturk" not in _built:
        _built["mturk"] = MTurkClient(sandbox=settings.MTURK_SANDBOX)
    return _built["mturk"]  # type: ignore[no-any-return]


def prolific_client() -> ProlificClient:
    if "prolific" in _overrides:
        return _overrides["prolific"]  # type: ignore[no-any-return]
    if "prolific" not in _built:
        _built["prolific"] = ProlificClient(settings.PROLIFIC_API_TOKEN, base_url=settings.PROLIFIC_API_URL)
    return _built["prolific"]  # type: ignore[no-any-return]


@contextmanager
def market_clients(**clients: Any) -> Iterator[None]:
    """Use these clients (`mturk=`, `prolific=`) inside the block: for tests and the benchmark."""
    previous = dict(_overrides)
    _overrides.update(clients)
    try:
        yield
    finally:
        _overrides.clear()
        _overrides.update(previous)
