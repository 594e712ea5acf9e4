"""Flower, started with docker-compose.yml's own command, listens only on its address in the `edge`
network (where the proxy and its login reach it), never on every interface.

No Docker here: a stand-in `getent` answers for the name flower-edge as Docker's DNS would, with a
loopback address of its own (127.0.0.2), and the kernel's socket table says where Flower listens.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PORT = 5555
EDGE_ADDRESS = "127.0.0.2"


def compose_command() -> list[str]:
    """The flower service's command as compose runs it (`$$` is compose's escape for `$`)."""
    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["flower"]["command"]
    return shlex.split(command.replace("$$", "$"))


def fake_getent(folder: Path, answer: str) -> dict[str, str]:
    """An environment whose `getent hosts flower-edge` prints `answer` (nothing: the name is unknown)."""
    folder.mkdir()
    script = folder / "getent"
    reply = f'echo "{answer}"; exit 0' if answer else "exit 2"
    script.write_text(f'#!/bin/sh\n[ "$1 $2" = "hosts flower-edge" ] && {{ {reply}; }}\nexit 2\n')
    script.chmod(0o755)
    path = f"{folder}:{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"
    return {**os.environ, "PATH": path, "SECRET_KEY": "flower-address-test-" + "k" * 40}


def listening_on(port: int) -> set[str]:
    """The local addresses with a socket listening on `port` (IPv4 and IPv6), from /proc/net."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(_address(address))
    return found


def _address(hex_address: str) -> str:
    if len(hex_address) == 8:
        return ".".join(str(b) for b in reversed(bytes.fromhex(hex_address)))
    return "::" if int(hex_address, 16) == 0 else hex_address


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket table")
def test_flower_listens_only_on_its_edge_address(tmp_path: Path) -> None:
    if listening_on(PORT):
        pytest.skip(f"port {PORT} is taken here")
    env = fake_getent(tmp_path / "bin", f"{EDGE_ADDRESS}       flower-edge  flower-edge")
    flower = subprocess.Popen(
        compose_command(), cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not listening_on(PORT) and flower.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert listening_on(PORT) == {EDGE_ADDRESS}
    finally:
        os.killpg(flower.pid, signal.SIGTERM)
        flower.wait(timeout=30)


def test_without_an_edge_address_flower_does_not_start(tmp_path: Path) -> None:
    ran = subprocess.run(
        compose_command(), cwd=ROOT, env=fake_getent(tmp_path / "bin", ""), timeout=60, check=False
    )

    assert ran.returncode != 0
