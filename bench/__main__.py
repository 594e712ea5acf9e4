"""`make bench`: run every benchmark module in bench/ (or those named) and print their figures.

Each module has a `main()` that prints one line per figure. Run one with `python -m bench corpus`.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time
from pathlib import Path

import django


def main(names: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    available = sorted(
        m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_")
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
        importlib.import_module(f"bench.{name}").main()
        print(f"== bench {name} done in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
