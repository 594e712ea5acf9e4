"""Done-when: the crawl example the README shows prints what it shows. The README shows the first run of
the how-to's example (docs/how-to/crawl.md shows two). The test reads the commands and their output
from the pages themselves, so they cannot drift, and runs the commands as written there on a fresh
database, the saved pages served from 127.0.0.1."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.crawler.conftest import IDEBATE_PAGES, REPO

HOW_TO = REPO / "docs" / "how-to" / "crawl.md"
README = REPO / "README.md"
# What crawl_env sets that a reader's shell does not: the example runs with the defaults.
TEST_ONLY = ("CRAWLER_DOWNLOAD_DELAY_MS", "CRAWLER_AUTOTHROTTLE", "LOG_LEVEL")
SCRAPY_SAYS = ("Dumping Scrapy stats", "Spider closed", "DebateItem(")


def example(page: Path = HOW_TO) -> list[tuple[list[str], list[str]]]:
    """The page's console block: each command, as words, with the lines it prints."""
    blocks = re.findall(r"```console\n(.*?)```", page.read_text(), re.S)
    (block,) = [b for b in blocks if "--serve-saved-pages" in b]
    steps: list[tuple[list[str], list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((shlex.split(line[2:]), []))
        else:
            steps[-1][1].append(line)
    return steps


def as_run_here(words: list[str], pages: Path) -> list[str]:
    """The command as the page writes it, with this interpreter and the test's copy of the pages (in a
    folder of its own, so its port is not the one other crawls of the shared pages want)."""
    assert words[0] == ".venv/bin/python" and words[1:3] == ["manage.py", "crawl"]
    folder = words.index("--serve-saved-pages") + 1
    assert Path(words[folder]).parts[-3:] == IDEBATE_PAGES.parts[-3:]
    return [sys.executable, *words[1:folder], str(pages), *words[folder + 1 :]]


def test_the_example_is_two_crawls_of_the_saved_pages_with_a_limit() -> None:
    steps = example()
    assert len(steps) == 2
    assert all("--limit" in words and "--serve-saved-pages" in words for words, _ in steps)


def test_the_readmes_crawl_is_the_how_tos_first_run() -> None:
    assert example(README) == example()[:1]


def test_the_crawl_example_prints_what_the_how_to_shows(crawl_env: dict[str, str], tmp_path: Path) -> None:
    pages = shutil.copytree(IDEBATE_PAGES, tmp_path / "pages")
    env = {name: value for name, value in crawl_env.items() if name not in TEST_ONLY}
    for words, shown in example():
        done = subprocess.run(
            as_run_here(words, pages), cwd=REPO, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.splitlines() == shown, done.stderr[-3000:]
        # Scrapy's own log is in the run's log, not on the terminal.
        assert not [said for said in SCRAPY_SAYS if said in done.stderr], done.stderr[-3000:]
    logs = sorted((Path(crawl_env["CRAWLER_DIR"]) / "logs").glob("run-*.log"))
    assert [log.name for log in logs] == ["run-1.log", "run-2.log"]
    assert all(said in log.read_text() for log in logs for said in SCRAPY_SAYS)


def test_with_verbosity_2_scrapys_log_is_on_the_terminal_too(
    crawl_env: dict[str, str], tmp_path: Path
) -> None:
    pages = shutil.copytree(IDEBATE_PAGES, tmp_path / "pages")
    args = ["manage.py", "crawl", "idebate", "--serve-saved-pages", str(pages), "--limit", "1", "-v", "2"]
    done = subprocess.run(
        [sys.executable, *args], cwd=REPO, env=crawl_env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    log = (Path(crawl_env["CRAWLER_DIR"]) / "logs" / "run-1.log").read_text()
    assert "Dumping Scrapy stats" in done.stderr and "Dumping Scrapy stats" in log
    assert done.stdout.splitlines()[-1].endswith("debates ingested 1, unchanged 0, drops 0, errors 0")
