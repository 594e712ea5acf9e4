"""The production path without Docker: gunicorn (DEBUG off, PostgreSQL, Redis), a Celery worker and
Flower behind Caddy with `tls internal` and deploy/Caddyfile, all on loopback, for the smoke test
(test_production_smoke.py, through conftest.py's `stack`).

Its own database (`<DATABASE_URL's name>_smoke`, created and dropped here), the Redis database of
REDIS_URL, a queue of its own for the worker, free ports; every process is stopped at the end.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

from rigs.databases import scratch_database
from rigs.processes import ProcessGroup, free_port

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
START_SECONDS = 90  # every process up and answering through the proxy
# Compressing every static file takes minutes on a loaded two-core machine.
COLLECTSTATIC_SECONDS = 400


@dataclass(frozen=True)
class Stack:
    https: str  # https://localhost:<port>
    http: str
    web: str  # gunicorn itself, as the proxy and docker-compose.yml's health check reach it
    ca: Path  # Caddy's local root certificate: TLS is verified, not skipped
    admin_password: str
    flower_login: tuple[str, str]
    worker_name: str
    job: int
    hit: str
    release: str

    def session(self) -> requests.Session:
        return loopback_session(self.ca)


def loopback_session(ca: Path) -> requests.Session:
    """Verifies TLS against Caddy's local CA only; no proxy or CA bundle from the environment."""
    session = requests.Session()
    session.trust_env = False
    session.verify = str(ca)
    return session


def app_environment(tmp: Path, database_url: str) -> dict[str, str]:
    """What docker-compose.yml gives the app services, with local values."""
    return {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "WORKER_PSEUDONYM_KEY": secrets.token_hex(32),
        "STANCEWORK_DOMAIN": "localhost",
        "DATABASE_URL": database_url,
        "REDIS_URL": os.environ["REDIS_URL"],
        "STANCEWORK_VAR_DIR": str(tmp / "var"),
        "STATIC_ROOT": str(tmp / "static"),
        "STANCEWORK_CODE_VERSION": "smoke",
        # Index syncs would queue tasks for a worker on the default queue, which this test does not run.
        "SEARCH_SYNC": "false",
    }


def caddy_environment(tmp: Path, ports: dict[str, int], flower_auth: str) -> dict[str, str]:
    """What docker-compose.yml gives the proxy (the Flower login derived as its command derives it),
    plus loopback ports and a private Caddy home."""
    user, _, password = flower_auth.partition(":")
    hashed = subprocess.run(
        ["caddy", "hash-password"],
        input=f"{password}\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    return {
        "FLOWER_USER": user,
        "FLOWER_PASSWORD_HASH": hashed,
        **os.environ,
        "STANCEWORK_DOMAIN": "localhost",
        "CADDY_TLS": "internal",
        "CADDY_BIND": "127.0.0.1",
        "CADDY_HTTP_PORT": str(ports["http"]),
        "CADDY_HTTPS_PORT": str(ports["https"]),
        "CADDY_ADMIN": f"127.0.0.1:{ports['admin']}",
        "WEB_UPSTREAM": f"127.0.0.1:{ports['web']}",
        "FLOWER_UPSTREAM": f"127.0.0.1:{ports['flower']}",
        "XDG_DATA_HOME": str(tmp / "caddy-data"),
        "XDG_CONFIG_HOME": str(tmp / "caddy-config"),
        "HOME": str(tmp),
    }


def migrate_and_collect_static(group: ProcessGroup, env: dict[str, str]) -> None:
    """What the compose `web` command runs before gunicorn, the two side by side."""
    group.start("collectstatic", [PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"], env)
    group.run("migrate", [PYTHON, "manage.py", "migrate", "--noinput", "-v0"], env, timeout=180)
    group.wait_until(
        lambda: group.running["collectstatic"].poll() is not None, "collectstatic", COLLECTSTATIC_SECONDS
    )
    assert group.running.pop("collectstatic").returncode == 0, group.log_tail("collectstatic")


def seed(group: ProcessGroup, env: dict[str, str]) -> dict[str, str]:
    seeded = group.run("seed", [PYTHON, "-m", "tests.deploy.smoke_seed"], env, timeout=120)
    return dict(json.loads(seeded.strip().splitlines()[-1]))


def start_services(
    group: ProcessGroup, env: dict[str, str], ports: dict[str, int], worker: str, flower_auth: str
) -> None:
    celery = [PYTHON, "-m", "celery", "-A", "config"]
    group.start(
        "gunicorn",
        [PYTHON, "-m", "gunicorn", "config.wsgi:application", "--config", "config/gunicorn.conf.py",
         "--bind", f"127.0.0.1:{ports['web']}", "--workers", "2", "--timeout", "60"],
        env,
    )  # fmt: skip
    group.start(
        "worker",
        [*celery, "worker", "--queues", worker, "--hostname", worker, "--pool", "solo",
         "--without-mingle", "--without-gossip", "--loglevel", "INFO"],
        env,
    )  # fmt: skip
    group.start(
        "flower",
        [*celery, "flower", f"--port={ports['flower']}", "--address=127.0.0.1", "--url_prefix=flower"],
        {**env, "FLOWER_BASIC_AUTH": flower_auth},  # as in docker-compose.yml: Flower's environment only
    )


@contextmanager
def running_stack(tmp: Path) -> Iterator[Stack]:
    """The stack up, with its data seeded, until the block ends; every process stopped then."""
    ports = {name: free_port() for name in ("http", "https", "admin", "web", "flower")}
    admin_password, flower_password = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    worker = f"smoke-{secrets.token_hex(4)}@localhost"
    group = ProcessGroup(tmp, ROOT)
    with scratch_database("smoke") as database_url:
        env = app_environment(tmp, database_url)
        try:
            migrate_and_collect_static(group, env)
            start_services(group, env, ports, worker, f"ops:{flower_password}")
            config = str(ROOT / "deploy" / "Caddyfile")
            group.start("caddy", ["caddy", "run", "--config", config, "--adapter", "caddyfile"],
                        caddy_environment(tmp, ports, f"ops:{flower_password}"))  # fmt: skip
            # While the services start: the data the checks need.
            seeded = seed(group, {**env, "SMOKE_ADMIN_PASSWORD": admin_password})
            ca = tmp / "caddy-data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
            https = f"https://localhost:{ports['https']}"
            group.wait_until(lambda: _answers(f"{https}/healthz", ca), "web through the proxy", START_SECONDS)
            flower_up = f"{https}/flower/healthcheck"
            group.wait_until(
                lambda: _answers(flower_up, ca, ("ops", flower_password)), "Flower", START_SECONDS
            )
            yield Stack(
                https=https,
                http=f"http://localhost:{ports['http']}",
                web=f"http://127.0.0.1:{ports['web']}",
                ca=ca,
                admin_password=admin_password,
                flower_login=("ops", flower_password),
                worker_name=worker,
                job=int(seeded["job"]),
                hit=str(seeded["hit"]),
                release=str(seeded["release"]),
            )
        finally:
            group.stop()


def _answers(url: str, ca: Path, auth: tuple[str, str] | None = None) -> bool:
    if not ca.exists():
        return False
    try:
        return loopback_session(ca).get(url, auth=auth, timeout=5).status_code == 200
    except requests.RequestException:
        return False


def logged_in(stack: Stack) -> requests.Session:
    session = stack.session()
    login = f"{stack.https}/admin/login/"
    session.get(login, timeout=10).raise_for_status()
    response = session.post(
        login,
        data={
            "username": "smoke-admin",
            "password": stack.admin_password,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "next": "/admin/",
        },
        headers={"Referer": login},  # Django's CSRF check wants a same-origin referer over https
        allow_redirects=False,
        timeout=10,
    )
    assert response.status_code == 302 and response.headers["Location"] == "/admin/", response.text[:500]
    return session
