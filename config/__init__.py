"""Stancework project configuration."""

import os

# NumPy asks the kernel for huge pages for its large arrays; where the kernel then compacts memory
# on the spot (transparent huge pages' defrag "madvise", Debian's default), each fresh 80 MB array
# (ten million responses' column) took several times longer to touch, and a first aggregate_job at
# 10M rows was slower by as much (bench labels). Set before NumPy is imported; a deployment may set it to 1.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

from config.celery import app as celery_app

__all__ = ["celery_app"]
