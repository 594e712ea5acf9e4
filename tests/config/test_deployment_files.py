"""docker-compose.yml (no Docker engine runs here): its structure is what the README promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_every_service_with_a_health_check(compose: dict) -> None:
    services = compose["services"]
    assert set(services) == {"web", "worker", "beat", "flower", "postgres", "redis", "elasticsearch"}
    for name, service in services.items():
        assert "test" in service["healthcheck"], name


def test_compose_app_services_share_one_environment_with_no_default_secrets(compose: dict) -> None:
    envs = [compose["services"][name]["environment"] for name in ("web", "worker", "beat", "flower")]
    assert all(env == envs[0] for env in envs)
    assert envs[0]["SECRET_KEY"] == "${SECRET_KEY:?set SECRET_KEY}"
    assert envs[0]["DEBUG"] == "false"
    assert envs[0]["DATABASE_URL"].startswith("postgres://")
    assert envs[0]["REDIS_URL"].startswith("redis://redis:")


def test_compose_web_runs_gunicorn_and_redis_never_evicts_tasks(compose: dict) -> None:
    assert "gunicorn config.wsgi:application" in compose["services"]["web"]["command"]
    redis = compose["services"]["redis"]["command"]
    assert "--maxmemory-policy noeviction" in redis and "--appendonly yes" in redis
    es = compose["services"]["elasticsearch"]
    assert re.search(r"elasticsearch:8\.", es["image"])
    assert es["environment"]["discovery.type"] == "single-node"


def test_compose_app_services_wait_for_healthy_backends(compose: dict) -> None:
    depends = compose["services"]["worker"]["depends_on"]
    assert {name: dep["condition"] for name, dep in depends.items()} == {
        "postgres": "service_healthy",
        "redis": "service_healthy",
        "elasticsearch": "service_healthy",
    }


@pytest.mark.django_db
def test_health_check_answers_ok(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"
