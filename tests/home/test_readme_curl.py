"""Done-when: the README's curl block works verbatim after `make run`: its port comes from PORT and its
job id from the create response. Run with bash, unchanged, against the served demo."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.served_demo import ServedDemo

pytestmark = pytest.mark.slow
README = Path(__file__).resolve().parents[2] / "README.md"


def readme_curl_block() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
    (block,) = [b for b in blocks if "drf_create_token" in b and "/api/jobs/" in b]
    return block


def test_the_block_names_no_port_and_no_job_id() -> None:
    block = readme_curl_block()
    assert ":8000/" not in block and "/jobs/1/" not in block
    assert "${PORT:-8000}" in block


def test_the_readmes_curl_block_runs_verbatim_against_a_served_demo(served_demo: ServedDemo) -> None:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", readme_curl_block()],
        cwd=README.parent,
        env=served_demo.env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    published, progress, outcomes = done.stdout.split("\n", 2)
    assert json.loads(published)["label"].startswith("Publish job ")
    assert json.loads(progress)["assignments_wanted"] > 0
    header, *rows = outcomes.strip().splitlines()
    assert header.startswith("item,") and rows == []  # the CSV's header; nobody has answered yet
