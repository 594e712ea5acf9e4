"""How long a process takes to start: `manage.py --help` and `manage.py check`, side by side with the
same commands of a new `django-admin startproject` that has Django REST framework installed.

Both projects run in this venv, in the same run, taking turns (as hyperfine does, so a busy moment
weighs on both); each figure is the median of ROUNDS runs. Bytecode is compiled once before timing,
into a throwaway cache, as a deployed process finds it. Every management command and Celery worker
pays about `--help`'s start: it sets Django up the same way.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from django.conf import settings

ROUNDS = 10
COMMANDS = {"help": ["--help"], "check": ["check"]}
GOAL_RATIO = 2.0  # `manage.py --help` at most twice a new Django + DRF project's


def fresh_project(folder: Path) -> Path:
    """A new project from `django-admin startproject`, with rest_framework in INSTALLED_APPS."""
    folder.mkdir()
    subprocess.run([sys.executable, "-m", "django", "startproject", "fresh", str(folder)], check=True)
    settings_file = folder / "fresh" / "settings.py"
    text = settings_file.read_text()
    installed = "'django.contrib.staticfiles',"
    settings_file.write_text(text.replace(installed, f"{installed}\n    'rest_framework',", 1))
    return folder


def environment(scratch: Path, settings_module: str | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    env["STANCEWORK_VAR_DIR"] = str(scratch / "var")
    if settings_module:
        env["DJANGO_SETTINGS_MODULE"] = settings_module
    return env


def seconds(project: Path, arguments: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=project, env=env, check=True, capture_output=True
    )
    return time.perf_counter() - started


def medians(projects: dict[str, tuple[Path, dict[str, str]]]) -> dict[tuple[str, str], float]:
    """(project, command) → median seconds, the projects taking turns within each round."""
    runs: dict[tuple[str, str], list[float]] = {}
    for project, env in projects.values():  # compiles each project's bytecode once
        for arguments in COMMANDS.values():
            seconds(project, arguments, env)
    for _ in range(ROUNDS):
        for command, arguments in COMMANDS.items():
            for name, (project, env) in projects.items():
                runs.setdefault((name, command), []).append(seconds(project, arguments, env))
    return {key: statistics.median(values) for key, values in runs.items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        projects = {
            "stancework": (Path(settings.BASE_DIR), environment(scratch, "config.settings")),
            "fresh": (fresh_project(scratch / "fresh"), environment(scratch, None)),
        }
        figures = medians(projects)
    for command in COMMANDS:
        ours, fresh = figures["stancework", command], figures["fresh", command]
        goal = f" (goal: ratio<={GOAL_RATIO:g})" if command == "help" else ""
        print(
            f"startup {command} stancework_s={ours:.3f} fresh_django_drf_s={fresh:.3f} "
            f"ratio={ours / fresh:.1f}{goal}",
            flush=True,
        )
