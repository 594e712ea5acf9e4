"""The settings reference page, written from the settings modules' own comments (config/settings/):
each environment variable is documented there once, as `# NAME: meaning. Default: ….` directly
above its read (continuation lines start with `#   `), in sections headed `# ── Name ───`. Needs no
Django."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SETTINGS = Path(__file__).resolve().parents[1] / "config" / "settings"
# The package gathers its modules, one per concern, in the order the page shows them.
GATHERED = re.compile(r"^from config\.settings\.(\w+) import \*", re.MULTILINE)
SECTION = re.compile(r"^# ── (.+?) ─")
ENTRY = re.compile(r"^\s*# ([A-Z][A-Z0-9_]+): (.*)$")
CONTINUATION = re.compile(r"^\s*#   (.*)$")
# The default runs to the first full stop that ends a sentence (not the dots of 2.5 or 127.0.0.1).
DEFAULT = re.compile(r"\s*Default: (.*?)\.(?=\s|$)")


def settings_modules() -> list[Path]:
    """The settings modules, in the order config/settings/__init__.py gathers them."""
    return [SETTINGS / f"{name}.py" for name in GATHERED.findall((SETTINGS / "__init__.py").read_text())]


def settings_text() -> str:
    """Every settings module's text, one after another in that order."""
    return "\n".join(module.read_text() for module in settings_modules())


@dataclass(frozen=True)
class Variable:
    name: str
    meaning: str
    default: str


def settings_sections(text: str) -> dict[str, list[Variable]]:
    """Each section's variables, in the file's order; sections that read none are left out."""
    sections: dict[str, list[Variable]] = {}
    section, lines = "Settings", text.splitlines()
    for number, line in enumerate(lines):
        if heading := SECTION.match(line):
            section = heading.group(1).strip()
        elif entry := ENTRY.match(line):
            sections.setdefault(section, []).append(_variable(entry, lines[number + 1 :]))
    return sections


def _variable(entry: re.Match[str], following: list[str]) -> Variable:
    words = [entry.group(2)]
    for line in following:
        if not (continued := CONTINUATION.match(line)):
            break
        words.append(continued.group(1))
    text = " ".join(word.strip() for word in words)
    found = DEFAULT.search(text)
    default = found.group(1) if found else ""
    meaning = DEFAULT.sub("", text, count=1).strip() if found else text
    return Variable(entry.group(1), meaning, default)


def settings_page(text: str | None = None) -> str:
    sections = settings_sections(settings_text() if text is None else text)
    lines = [
        "# Settings and environment variables",
        "",
        "Everything comes from the environment, read once in the modules of `config/settings/`; a bad "
        "value stops start-up with a message. This page is written at build time from the comment above each "
        "read there, so each variable is documented in exactly one place.",
        "",
    ]
    for section, variables in sections.items():
        lines += [f"## {section}", "", "| variable | default | meaning |", "|---|---|---|"]
        lines += [f"| `{v.name}` | {_cell(v.default)} | {_cell(v.meaning)} |" for v in variables]
        lines.append("")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|") or " "
