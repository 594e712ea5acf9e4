"""The repository explains itself: the README stays short and points into docs/, the command reference
covers every command, every guide joins the nav, and no code or comment cites a document outside
the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from docs_build.hooks import on_config
from docs_build.reference import commands_page, project_commands

ROOT = Path(__file__).resolve().parents[2]
README_LINES = 250
OUTSIDE = re.compile(r"SPEC\.md|STYLE\.md|\bSPEC §|\bSTYLE rule")


def test_the_readme_is_short_and_every_page_it_links_exists() -> None:
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(readme.splitlines()) <= README_LINES
    assert len(links) > 10
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_every_command_of_the_project_is_in_the_generated_reference() -> None:
    page = commands_page()
    commands = project_commands()
    assert {"create_job", "invite", "build_release", "crawl"} <= set(commands)
    on_disk = {path.stem for path in ROOT.glob("*/management/commands/*.py") if not path.stem.startswith("_")}
    assert set(commands) == on_disk  # every command file of the repository's apps, and nothing else
    assert [name for name in commands if f"\n## {name}\n" not in page] == []
    assert "`--expires`" in page and "how long the links work" in page  # invite's own argument and help


def test_every_guide_joins_the_nav(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    for name in ("b-second.md", "a-first.md"):
        (tmp_path / "guide" / name).write_text("# A guide\n")

    config = on_config({"docs_dir": str(tmp_path), "nav": [{"Home": "index.md"}]})

    assert config["nav"][-1] == {"Guides": ["guide/a-first.md", "guide/b-second.md"]}


def test_no_code_or_comment_cites_a_document_outside_the_repository() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    cited = [
        f"{name}:{number}"
        for name in tracked
        if not name.startswith("docs/")
        and (ROOT / name).is_file()
        and name.endswith((".py", ".html", ".md", ".toml"))
        for number, line in enumerate((ROOT / name).read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert len(tracked) > 100
    assert cited == []


def test_the_settings_reference_lists_every_variable_once_with_its_default() -> None:
    from docs_build.settings_reference import settings_page, settings_text

    page = settings_page()
    names = re.findall(r'\benv_\w+\(\s*"([A-Z0-9_]+)"', settings_text())
    assert len(names) > 60
    assert [name for name in names if page.count(f"| `{name}` |") != 1] == []
    assert "| `MARKET_SYNC_SECONDS` | 600 | every live market job is synced" in page


def test_a_settings_entry_is_split_into_its_meaning_and_default() -> None:
    from docs_build.settings_reference import settings_page

    text = (
        "# ── Odd ─────\n# A_B: the first line, with 1.5 in it.\n#   Default: 127.0.0.1 or none. More.\n"
        'A_B = env_str("A_B")\n'
    )
    assert "## Odd" in settings_page(text)
    assert "| `A_B` | 127.0.0.1 or none | the first line, with 1.5 in it. More. |" in settings_page(text)
