"""`make bench`: run every benchmark module in bench/ (or those named) and print their figures.

Each module has a `main()` that prints one line per figure. Run one with `python -m bench corpus`;
options after the names go to the modules that take them (`python -m bench search --fine-tune`).
Every module is meant to finish within BUDGET_SECONDS on a 2-core machine; the last line of each says
whether it did.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import sys
import time
from pathlib import Path

import django

BUDGET_SECONDS = 600.0


def main(arguments: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    names = [a for a in arguments if not a.startswith("-")]
    options = [a for a in arguments if a.startswith("-")]
    available = sorted(
        m.name
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if not m.name.startswith("_") and not m.ispkg
    )
    chosen = names or available
    unknown = sorted(set(chosen) - set(available))
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(available)}", file=sys.stderr
        )
        return 2
    for name in chosen:
        started = time.perf_counter()
        print(f"== bench {name}", flush=True)
        run = importlib.import_module(f"bench.{name}").main
        if "options" in inspect.signature(run).parameters:
            run(options=options)
        else:
            run()
        print(finished(name, time.perf_counter() - started), flush=True)
    return 0


def finished(name: str, seconds: float) -> str:
    verdict = "met" if seconds <= BUDGET_SECONDS else f"MISSED by {seconds - BUDGET_SECONDS:.0f} s"
    return f"== bench {name} done in {seconds:.1f} s (budget <= {BUDGET_SECONDS:g} s: {verdict})"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
