"""How far a long command has got: a tqdm bar per stage on a terminal, one summary line per stage when
the output is a file or a pipe (logs, CI), and nothing at all when a service runs without a command.

Services take a ``Progress`` and name their stages; commands pass ``shown_on(self.stderr)``. Imports
only tqdm, so any layer, pure cores included, may use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO, cast

from tqdm import tqdm

Advance = Callable[[int], None]


class Stream(Protocol):
    def write(self, text: str, /) -> object: ...
    def isatty(self) -> bool: ...


class Progress:
    """Reports nowhere: what a service uses when nobody is watching."""

    @contextmanager
    def stage(self, name: str, total: int | None = None, unit: str = "rows") -> Iterator[Advance]:
        yield lambda done: None


QUIET = Progress()


class Bars(Progress):
    """One tqdm bar per stage (the stream is a terminal)."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    @contextmanager
    def stage(self, name: str, total: int | None = None, unit: str = "rows") -> Iterator[Advance]:
        with tqdm(total=total, desc=name, unit=f" {unit}", file=_as_file(self.stream), leave=True) as bar:
            yield bar.update


class Lines(Progress):
    """One line per finished stage: its name, its count and how long it took."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    @contextmanager
    def stage(self, name: str, total: int | None = None, unit: str = "rows") -> Iterator[Advance]:
        done = [0]
        started = time.perf_counter()

        def advance(count: int) -> None:
            done[0] += count

        yield advance
        seconds = time.perf_counter() - started
        if total is None and not done[0]:
            self.stream.write(f"{name}: done in {seconds:.1f} s\n")
            return
        of = "" if total is None or total == done[0] else f" of {total}"
        self.stream.write(f"{name}: {done[0]}{of} {unit} in {seconds:.1f} s\n")


def shown_on(stream: Stream) -> Progress:
    """Bars on a terminal, summary lines otherwise."""
    return Bars(stream) if stream.isatty() else Lines(stream)


def _as_file(stream: Stream) -> TextIO:
    # Django's OutputWrapper adds a newline to every write; tqdm needs the raw stream to redraw a line.
    return cast(TextIO, getattr(stream, "_out", stream))
