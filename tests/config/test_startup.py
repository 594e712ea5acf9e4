"""A management command and a Celery worker start without the heavy libraries: pandas, SciPy and
matplotlib load when a function first needs them. How fast the start is, `python -m bench startup`
measures; this test keeps the libraries from creeping back in through a module-level import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "scipy", "matplotlib")
# What Django's start (apps, models, admin, checks) and the list of commands must not load either: the
# number crunching, the page parsers, the search index, the crawler and the market clients, and the
# API schema's generator, and Celery (a process loads it when it first sends or registers a task: a
# worker, a command that queues one). Each loads when a command, task or page first uses it.
STARTUP_HEAVY = (
    *HEAVY,
    "numpy",
    "krippendorff",
    "sklearn",
    "lxml",
    "w3lib",
    "cssselect",
    "tantivy",
    "psutil",
    "zxcvbn",
    "tqdm",
    "fastjsonschema",
    "scrapy",
    "boto3",
    "botocore",
    "openai",
    "drf_spectacular.openapi",
    "drf_spectacular.generators",
    "celery",
    "kombu",
    "config.celery",
)
# On SQLite, nor does PostgreSQL's driver or django.contrib.postgres's fields (the outcome counts'
# array): a start on PostgreSQL loads the driver for its connections anyway.
POSTGRESQL_ONLY = ("psycopg", "django.contrib.postgres.fields")

# Runs manage.py as `python manage.py ARGS` would, then reports which heavy libraries it loaded.
MANAGE = """
import contextlib, io, json, runpy, sys
sys.argv = ["manage.py", *json.loads(sys.argv[1])]
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):  # a command's --help exits
    runpy.run_path("manage.py", run_name="__main__")
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""

# Sets Django up and lists the commands, as `manage.py --help` does, then reports every loaded module.
SETUP = """
import json, sys, django
django.setup()
from django.core.management import ManagementUtility
ManagementUtility(["manage.py"]).main_help_text()
print(json.dumps(sorted(sys.modules)))
"""

# Imports what a Celery worker imports at start: Django, then every app's tasks module; every task
# beat sends and every job task is registered.
WORKER = """
import json, sys, django
django.setup()
from django.conf import settings
from config.celery import app
app.loader.import_default_modules()
wanted = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
wanted |= {"aggregation.aggregate_job", "annotation.publish_job", "annotation.sync_job"}
assert wanted <= set(app.tasks), sorted(wanted - set(app.tasks))
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def loaded_packages(code: str, *arguments: str, database: str | None = None) -> set[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    if database is not None:
        env["DATABASE_URL"] = database
    done = subprocess.run(
        [sys.executable, "-c", code, *arguments], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("command", [["--help"], ["create_job", "--help"]])
def test_a_management_command_starts_without_pandas_scipy_or_matplotlib(command: list[str]) -> None:
    loaded = loaded_packages(MANAGE, json.dumps(command))
    assert "django" in loaded and "config" in loaded  # the project itself was set up
    assert not loaded & set(HEAVY)


def test_django_setup_and_the_command_list_load_no_heavy_module() -> None:
    modules = loaded_packages(SETUP)
    assert {"django", "config", "annotation.admin", "aggregation.admin"} <= modules  # apps and admin loaded
    assert sorted(heavy for heavy in STARTUP_HEAVY if heavy in modules) == []


def test_on_sqlite_the_start_loads_no_postgresql_driver(tmp_path: Path) -> None:
    modules = loaded_packages(SETUP, database=f"sqlite:///{tmp_path / 'unused.sqlite3'}")
    assert "aggregation.models" in modules  # the model with the array field was loaded
    assert sorted(name for name in POSTGRESQL_ONLY if name in modules) == []


def test_a_celery_worker_starts_without_pandas_scipy_or_matplotlib() -> None:
    loaded = loaded_packages(WORKER)
    assert "aggregation" in loaded
    assert not loaded & set(HEAVY)


def test_the_setup_probe_sees_a_heavy_module_that_the_start_loads() -> None:
    probe = SETUP.replace("django.setup()", "django.setup(); import drf_spectacular.openapi")
    assert "drf_spectacular.openapi" in loaded_packages(probe)


def test_the_probe_sees_a_heavy_library_that_a_command_loads() -> None:
    """The probe reports a library the process did load, so the tests above can fail."""
    probe = MANAGE.replace("import contextlib,", "import pandas, contextlib,")
    assert "pandas" in loaded_packages(probe, json.dumps(["--help"]))
