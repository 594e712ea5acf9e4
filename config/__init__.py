"""Stancework project configuration."""

import os

# NumPy asks the kernel for huge pages for its large arrays; where the kernel then compacts memory
# on the spot (transparent huge pages' defrag "madvise", Debian's default), each fresh 80 MB array
# (ten million responses' column) took several times longer to touch, and a first aggregate_job at
# 10M rows was slower by as much (bench labels). Set before NumPy is imported; a deployment may set it to 1.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def __getattr__(name: str) -> object:
    """`config.celery_app`, loaded when first asked for, so that importing a pure module of this
    package (`config.wording`) loads no Celery. Neither does Django's start: a process loads the app
    with the first tasks module it imports, or the first task it asks for by name (operations.queueing)."""
    if name == "celery_app":
        from config.celery import app

        return app
    raise AttributeError(name)
