"""The project's processes leave NumPy's huge-page requests off (config/__init__.py), unless the
deployment's environment turns them on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

ASKS = "import config, numpy._core.multiarray as m; print(m._get_madvise_hugepage())"


@pytest.mark.parametrize(("given", "asks"), [(None, "False"), ("1", "True")])
def test_numpy_asks_for_huge_pages_only_when_the_environment_says_so(given: str | None, asks: str) -> None:
    env = {name: value for name, value in os.environ.items() if name != "NUMPY_MADVISE_HUGEPAGE"}
    if given is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = given
    done = subprocess.run(
        [sys.executable, "-c", ASKS],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == asks
