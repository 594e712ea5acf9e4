"""The operations a worker can run, registered by name by the apps that own them.

An operation is a function `(progress, **params) -> None` that acts on each object in turn and
reports each outcome with `progress.step(line)`; an app registers it in its AppConfig.ready.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Progress(Protocol):
    def step(self, line: str) -> None: ...

    def result(self, key: str, outcome: str) -> None:
        """Keep what the object `key` (its id) came to, for a page to read back by key."""


Runner = Callable[..., None]

_RUNNERS: dict[str, Runner] = {}


class OperationFailedError(RuntimeError):
    """A run that ended with some objects failed (each named in the log, e.g. a market unreachable):
    the operation is marked failed with this message, and the worker carries on (no crash, no 500)."""


class UnknownOperationError(LookupError):
    """No app registered an operation of this kind."""


def register(kind: str) -> Callable[[Runner], Runner]:
    def wrap(runner: Runner) -> Runner:
        _RUNNERS[kind] = runner
        return runner

    return wrap


def runner_for(kind: str) -> Runner:
    try:
        return _RUNNERS[kind]
    except KeyError:
        raise UnknownOperationError(f"no operation {kind!r}; known: {sorted(_RUNNERS)}") from None


def call(kind: str, progress: Progress, params: dict[str, Any]) -> None:
    runner_for(kind)(progress, **params)
