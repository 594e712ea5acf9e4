"""docker-compose.yml, the Caddyfile and the Dockerfile (no Docker engine runs here): their structure is
what docs/how-to/deploy.md promises. tests/deploy/ runs the same processes without Docker."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "beat", "flower", "backup")
# The Caddyfile's directives, without its comments.
CADDYFILE_LINES = (ROOT / "deploy" / "Caddyfile").read_text().splitlines()
CADDYFILE = "\n".join(line for line in CADDYFILE_LINES if not line.strip().startswith("#"))


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_every_service_with_a_health_check(compose: dict) -> None:
    services = compose["services"]
    assert set(services) >= {
        "proxy", "web", "worker", "beat", "flower", "backup", "postgres", "redis", "elasticsearch", "crawler"
    }  # fmt: skip
    for name, service in services.items():
        assert "test" in service["healthcheck"], name


def test_only_the_proxy_publishes_ports_and_only_http_and_https(compose: dict) -> None:
    services = compose["services"]
    published = {name: service["ports"] for name, service in services.items() if "ports" in service}
    assert list(published) == ["proxy"]
    assert {port.split(":")[0] for port in published["proxy"]} == {"80", "443"}
    assert not any("expose" in service for service in services.values())


def test_the_proxy_reaches_only_web_and_flower_and_they_alone_share_its_network(compose: dict) -> None:
    services = compose["services"]
    assert services["proxy"]["networks"] == ["edge"]
    on_edge = {name for name, service in services.items() if "edge" in service.get("networks", [])}
    assert on_edge == {"proxy", "web", "flower"}
    for name in ("postgres", "redis", "elasticsearch"):
        assert services[name]["networks"] == ["backend"], name


def test_the_proxy_serves_the_domain_with_the_caddyfile_and_keeps_its_certificates(compose: dict) -> None:
    proxy = compose["services"]["proxy"]
    assert re.fullmatch(r"caddy:2\.\d+", proxy["image"])
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert "caddydata:/data" in proxy["volumes"]  # certificates and the ACME account survive restarts
    env = proxy["environment"]
    assert env["STANCEWORK_DOMAIN"].startswith("${STANCEWORK_DOMAIN:?")
    assert env["CADDY_TLS"].startswith("${CADDY_TLS:?")
    assert env["MAX_REQUEST_BYTES"] == compose["services"]["web"]["environment"]["MAX_REQUEST_BYTES"]


def test_the_caddyfile_names_the_domain_tls_and_both_upstreams() -> None:
    assert re.search(r"^\{\$STANCEWORK_DOMAIN\} \{$", CADDYFILE, re.M)
    assert "\ttls {$CADDY_TLS}" in CADDYFILE
    assert "skip_install_trust" in CADDYFILE
    # Every Flower path asks for the login here first: Flower's own leaves /flower/metrics open.
    assert re.search(
        r"handle /flower/\* \{\n\s+basicauth \{\n\s+\{\$FLOWER_USER\} \{\$FLOWER_PASSWORD_HASH\}", CADDYFILE
    )
    assert "reverse_proxy {$FLOWER_UPSTREAM:flower:5555}" in CADDYFILE
    assert "reverse_proxy {$WEB_UPSTREAM:web:8000}" in CADDYFILE
    # Caddy only trusts a client's X-Forwarded-* from trusted_proxies; there must be none.
    assert "trusted_proxies" not in CADDYFILE
    assert "header_up X-Forwarded-Proto" not in CADDYFILE


def test_the_proxy_limits_request_bodies_exactly_as_django_does() -> None:
    limits = set(re.findall(r"\{\$MAX_REQUEST_BYTES:(\d+)\}", CADDYFILE))
    assert limits == {str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)}
    assert "max_size {$MAX_REQUEST_BYTES:" in CADDYFILE
    assert re.search(r'handle @oversized \{\n\s+respond "request body too large" 413', CADDYFILE)


def test_compose_app_services_share_one_environment_with_no_default_secrets(compose: dict) -> None:
    envs = {name: compose["services"][name]["environment"] for name in APP_SERVICES}
    shared = envs["web"]
    assert all(env.items() >= shared.items() for env in envs.values())
    assert envs["worker"] == envs["beat"] == shared
    assert shared["SECRET_KEY"] == "${SECRET_KEY:?set SECRET_KEY}"
    assert shared["WORKER_PSEUDONYM_KEY"] == "${WORKER_PSEUDONYM_KEY:?set WORKER_PSEUDONYM_KEY}"
    assert shared["STANCEWORK_DOMAIN"].startswith("${STANCEWORK_DOMAIN:?")
    assert shared["DEBUG"] == "false"
    # Nothing switches off what DEBUG=false turns on (https redirect, HSTS, secure cookies).
    assert not {"SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "ALLOWED_HOSTS"} & set(shared)
    assert shared["DATABASE_URL"].startswith("postgres://")
    assert shared["REDIS_URL"].startswith("redis://redis:")


def test_flower_sits_under_flower_behind_its_basic_auth_secret(compose: dict) -> None:
    flower = compose["services"]["flower"]
    assert "--url_prefix=flower" in flower["command"]
    assert flower["environment"]["FLOWER_BASIC_AUTH"].startswith("${FLOWER_BASIC_AUTH:?")
    assert "basic_auth" not in flower["command"]  # a password on the command line shows in ps
    # The proxy checks the same login (a hash of it, made at its start) before anything reaches Flower.
    proxy = compose["services"]["proxy"]
    assert proxy["environment"]["FLOWER_BASIC_AUTH"] == flower["environment"]["FLOWER_BASIC_AUTH"]
    assert "caddy hash-password" in proxy["command"][0] and "--plaintext" not in proxy["command"][0]
    assert "FLOWER_BASIC_AUTH" not in compose["services"]["web"]["environment"]
    assert "/flower/healthcheck" in " ".join(flower["healthcheck"]["test"])


def test_the_backup_worker_alone_takes_the_backup_queue_and_holds_the_backups_volume(compose: dict) -> None:
    services = compose["services"]
    backup = services["backup"]
    assert "--queues backups" in backup["command"] and "--concurrency 1" in backup["command"]
    assert backup["environment"]["BACKUP_DIR"] == "/backups"
    assert "backups:/backups" in backup["volumes"] and "appdata:/data" in backup["volumes"]
    holders = {name for name, service in services.items() if "backups:/backups" in service.get("volumes", [])}
    assert holders == {"backup"}
    assert "--queues" not in services["worker"]["command"]  # the default queue only
    assert settings.CELERY_BEAT_SCHEDULE["backup"]["options"]["queue"] == "backups"


def test_the_image_pg_dump_matches_the_postgres_server(compose: dict) -> None:
    server = re.fullmatch(r"postgres:(\d+)", compose["services"]["postgres"]["image"])
    assert server
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert f"ARG POSTGRES_MAJOR={server.group(1)}" in dockerfile
    assert "postgresql-client-${POSTGRES_MAJOR}" in dockerfile


def test_compose_web_runs_gunicorn_and_redis_never_evicts_tasks(compose: dict) -> None:
    assert "gunicorn config.wsgi:application" in compose["services"]["web"]["command"]
    # One settings file for every place that serves the app (threaded workers, kept-alive connections).
    for command in (compose["services"]["web"]["command"], (ROOT / "Dockerfile").read_text()):
        assert re.search(r'--config"?,? "?config/gunicorn\.conf\.py', command), command
    redis = compose["services"]["redis"]["command"]
    assert "--maxmemory-policy noeviction" in redis and "--appendonly yes" in redis
    es = compose["services"]["elasticsearch"]
    assert re.search(r"elasticsearch:8\.", es["image"])
    assert es["environment"]["discovery.type"] == "single-node"


def test_web_health_check_asks_as_the_proxy_does(compose: dict) -> None:
    check = " ".join(compose["services"]["web"]["healthcheck"]["test"])
    assert "'X-Forwarded-Proto': 'https'" in check and "os.environ['STANCEWORK_DOMAIN']" in check


def test_compose_app_services_wait_for_healthy_backends(compose: dict) -> None:
    for name in APP_SERVICES:
        depends = compose["services"][name]["depends_on"]
        assert {dep: spec["condition"] for dep, spec in depends.items()} == {
            "postgres": "service_healthy",
            "redis": "service_healthy",
            "elasticsearch": "service_healthy",
        }, name


@pytest.mark.django_db
def test_health_check_answers_ok(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"


def test_the_crawler_helpers_join_shared_crawls_and_scale_from_the_environment(compose: dict) -> None:
    crawler, web = compose["services"]["crawler"], compose["services"]["web"]
    assert "crawl" in crawler["command"] and "--join" in crawler["command"] and "--wait" in crawler["command"]
    assert crawler["deploy"]["replicas"] == "${CRAWLER_REPLICAS:-0}"
    assert crawler["environment"] == web["environment"]  # the same database and the same Redis


def test_the_stateless_services_scale_from_the_environment_and_the_singletons_do_not(compose: dict) -> None:
    services = compose["services"]
    for name, variable in (
        ("web", "WEB_REPLICAS"),
        ("worker", "WORKER_REPLICAS"),
        ("crawler", "CRAWLER_REPLICAS"),
    ):
        assert services[name]["deploy"]["replicas"].startswith("${" + variable + ":-"), name
    # One beat (two would send every periodic task twice), one database, one Redis, one proxy.
    for name in ("beat", "postgres", "redis", "proxy", "backup"):
        assert "replicas" not in services[name].get("deploy", {}), name
