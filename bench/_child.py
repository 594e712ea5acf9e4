"""Run a benchmark's code in a fresh process on a throwaway database and state directory.

Each benchmark measures from a cold, empty database, and none touches the checkout's var/.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from django.conf import settings


def run_child(
    code: str, database_url: str | None = None, extra_env: dict[str, str] | None = None
) -> list[str]:
    """The lines the child printed; raises ChildError with the end of its stderr when it failed.

    Without `database_url`, the child gets a SQLite file in its own temporary directory, which is
    also its STANCEWORK_VAR_DIR. The child sees RELEASE (the PERSPECTRUM directory) and OUT.
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DATABASE_URL": database_url or f"sqlite:///{tmp}/bench.sqlite3",
            "RELEASE": str(settings.PERSPECTRUM_DIR),
            "OUT": f"{tmp}/out",
            "STANCEWORK_VAR_DIR": tmp,
            "STANCEWORK_RELEASES_DIR": f"{tmp}/releases",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            **(extra_env or {}),
        }
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            cwd=settings.BASE_DIR,
        )
    if done.returncode != 0:
        raise ChildError(done.stderr[-500:])
    return done.stdout.strip().splitlines()


class ChildError(RuntimeError):
    """The benchmark's child process failed."""
