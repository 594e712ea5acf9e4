"""The settings reference page, written from config/settings.py's own comments: each environment
variable is documented there once, as `# NAME: meaning. Default: ….` directly above its read
(continuation lines start with `#   `), in sections headed `# ── Name ───`. Needs no Django."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SETTINGS = Path(__file__).resolve().parents[1] / "config" / "settings.py"
SECTION = re.compile(r"^# ── (.+?) ─")
ENTRY = re.compile(r"^\s*# ([A-Z][A-Z0-9_]+): (.*)$")
CONTINUATION = re.compile(r"^\s*#   (.*)$")
# The default runs to the first full stop that ends a sentence (not the dots of 2.5 or 127.0.0.1).
DEFAULT = re.compile(r"\s*Default: (.*?)\.(?=\s|$)")


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
    sections = settings_sections(SETTINGS.read_text() if text is None else text)
    lines = [
        "# Settings and environment variables",
        "",
        "Everything comes from the environment, read once in `config/settings.py`; a bad value stops "
        "start-up with a message. This page is written at build time from the comment above each "
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
