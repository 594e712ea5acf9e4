"""The release-building fixtures of tests/export, for the backup round trip; the production stack of the
smoke test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.production_stack import Stack, running_stack
from tests.export.conftest import pseudonym_key, releases_dir, simulated_job, small_corpus  # noqa: F401


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The production stack for one module's checks (test_production_smoke.py): started once."""
    with running_stack(tmp_path_factory.mktemp("smoke")) as running:
        yield running
