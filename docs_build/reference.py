"""The reference pages, written from the code: each command's arguments from its argparse parser, each
API operation from the OpenAPI schema. Needs Django set up (docs_build.hooks does it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.management import get_commands, load_command_class

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("get", "post", "put", "patch", "delete")


def project_commands() -> dict[str, str]:
    """The project's own management commands (name → app), not Django's or a library's: those of the
    installed apps that are folders of this repository (a library's app lives in site-packages)."""
    ours = {config.name for config in apps.get_app_configs() if Path(config.path).resolve().parent == ROOT}
    return {name: app for name, app in sorted(get_commands().items()) if app in ours}


def commands_page() -> str:
    lines = [
        "# Commands",
        "",
        "Every `manage.py` command of the project, written at build time from the command's own "
        "arguments (`.venv/bin/python manage.py COMMAND --help` prints the same). "
        "Django's own commands (`migrate`, `createsuperuser`, …) are in Django's documentation.",
        "",
    ]
    for name, app in project_commands().items():
        lines += _command_section(name, app)
    return "\n".join(lines) + "\n"


def _command_section(name: str, app: str) -> list[str]:
    command = load_command_class(app, name)
    parser = command.create_parser("manage.py", name)
    own = [action for action in parser._actions if action.dest not in _COMMON and action.dest != "help"]
    usage = " ".join(["manage.py", name, *(_usage(action) for action in own)])
    lines = [f"## {name}", "", f"*{app}* — {command.help or 'no description'}", "", f"```\n{usage}\n```", ""]
    if own:
        lines += ["| argument | meaning |", "|---|---|"]
        lines += [f"| {_argument(action)} | {_meaning(action)} |" for action in own]
        lines.append("")
    return lines


# The options every Django command has (verbosity, settings, traceback …): listed once, not per command.
_COMMON = frozenset(
    {"version", "verbosity", "settings", "pythonpath", "traceback", "no_color", "force_color", "skip_checks"}
)


def _usage(action: argparse.Action) -> str:
    """How the argument is written on the command line: `job`, `--out OUT`, `[--limit LIMIT]`."""
    if not action.option_strings:
        return str(action.metavar or action.dest)
    written = (
        action.option_strings[-1] if action.option_strings[-1].startswith("--") else action.option_strings[0]
    )
    if action.nargs != 0:
        written += " " + str(action.metavar or action.dest.upper())
    return written if action.required else f"[{written}]"


def _argument(action: argparse.Action) -> str:
    names = ", ".join(action.option_strings) or action.dest
    return f"`{names}`".replace("|", "\\|")


def _meaning(action: argparse.Action) -> str:
    parts = [str(action.help or "")]
    if action.choices:
        parts.append("one of " + ", ".join(f"`{choice}`" for choice in action.choices))
    if action.default not in (None, argparse.SUPPRESS, False, [], "") and action.option_strings:
        parts.append(f"default `{action.default}`")
    if action.required and action.option_strings:
        parts.append("required")
    return "; ".join(part for part in parts if part).replace("|", "\\|").replace("\n", " ") or " "


def endpoints_page() -> str:
    from drf_spectacular.generators import SchemaGenerator

    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    lines = [
        "# API endpoints",
        "",
        f"Every operation of the API, written at build time from its OpenAPI schema "
        f"({schema['info'].get('title', 'the API')}, served at `/api/schema/`, browsable at `/api/docs/`). "
        "See [the API](api.md) for logging in, paging and CSV.",
        "",
        "| method | path | what it does |",
        "|---|---|---|",
    ]
    for path, operations in schema["paths"].items():
        for method in METHODS:
            if method in operations:
                lines.append(f"| {method.upper()} | `{path}` | {_summary(operations[method])} |")
    return "\n".join(lines) + "\n"


def _summary(operation: dict[str, Any]) -> str:
    text = operation.get("summary") or operation.get("description") or operation.get("operationId", "")
    first = str(text).strip().split("\n\n")[0]
    return " ".join(first.split()).replace("|", "\\|")
