"""Every environment variable the settings modules (config/settings/) read is documented there once, in
the form the package's docstring describes (`# NAME: meaning. Default: …` directly above the read)."""

from __future__ import annotations

import re

from docs_build.settings_reference import SETTINGS, settings_modules, settings_text

READ = re.compile(r'\benv_(?:str|int|bool|list|path|pairs|hostname)\(\s*"([A-Z0-9_]+)"')
DOC = re.compile(r"^\s*# ([A-Z][A-Z0-9_]+): \S")


def reads(text: str) -> list[str]:
    return READ.findall(text) + (["SECRET_KEY"] if "secret_key(" in text else [])


def documented(text: str) -> list[str]:
    return [match.group(1) for line in text.splitlines() if (match := DOC.match(line))]


def undocumented_lines(text: str) -> list[str]:
    """The reads whose nearest comment block above does not open with `# NAME:` for their variable."""
    lines, missing = text.splitlines(), []
    for number, line in enumerate(lines):
        for name in READ.findall(line):
            above = number - 1
            while above >= 0 and lines[above].lstrip().startswith("#   "):
                above -= 1  # a continuation line of the same entry
            opening = DOC.match(lines[above]) if above >= 0 else None
            if not opening or opening.group(1) != name or "Default:" not in _entry(lines, above, number):
                missing.append(name)
    return missing


def _entry(lines: list[str], first: int, read: int) -> str:
    return " ".join(lines[first:read])


def test_every_settings_module_is_gathered_by_the_package() -> None:
    """A module the package does not gather is neither read by Django nor shown on the settings page."""
    modules = settings_modules()
    assert len(modules) > 10
    assert sorted(modules) == sorted(set(SETTINGS.glob("*.py")) - {SETTINGS / "__init__.py"})


def test_each_variable_is_read_once_and_documented_once() -> None:
    text = settings_text()
    read = reads(text)
    assert len(read) > 60, "the settings read their variables through the env_* helpers"
    assert sorted(read) == sorted(set(read)), "a variable read twice"
    assert sorted(documented(text)) == sorted(read)


def test_each_read_has_its_entry_directly_above_with_its_default() -> None:
    assert undocumented_lines(settings_text()) == []


def test_a_read_without_its_entry_is_found() -> None:
    text = '# OTHER: something. Default: 1.\nX = env_int("X", 1)\n# Y: why, no default.\nY = env_str("Y")\n'
    assert undocumented_lines(text) == ["X", "Y"]
