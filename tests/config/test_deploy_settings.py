"""The settings a deployment behind the TLS proxy relies on, read from a fresh environment each time."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from config.env import ConfigError

SETTINGS = "config.settings"
PRODUCTION = {"DEBUG": "false", "SECRET_KEY": "s" * 50, "WORKER_PSEUDONYM_KEY": "k" * 32}
DEPLOY_VARIABLES = (
    "STANCEWORK_DOMAIN",
    "ALLOWED_HOSTS",
    "MARKET_PUBLIC_URL",
    "MAX_REQUEST_BYTES",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "BACKUP_KEEP",
    "BACKUP_INTERVAL_SECONDS",
    "DB_CONN_MAX_AGE",
    "DB_CONN_HEALTH_CHECKS",
    "DB_PREPARED_STATEMENTS",
)


@pytest.fixture
def load_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    def load(**env: str) -> dict[str, Any]:
        for name in DEPLOY_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("STANCEWORK_VAR_DIR", str(tmp_path))
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return fresh_settings()

    return load


def _settings_modules() -> dict[str, Any]:
    return {name: m for name, m in sys.modules.items() if name == SETTINGS or name.startswith(f"{SETTINGS}.")}


def fresh_settings() -> dict[str, Any]:
    """The settings package and its modules run anew in this environment, as a process starting now
    reads them; the loaded ones are put back after, so the running suite keeps its own."""
    loaded = _settings_modules()
    for name in loaded:
        del sys.modules[name]
    try:
        return dict(vars(importlib.import_module(SETTINGS)))
    finally:
        for name in _settings_modules():
            del sys.modules[name]
        sys.modules.update(loaded)
        sys.modules["config"].settings = loaded[SETTINGS]  # type: ignore[attr-defined]


def test_the_domain_is_the_allowed_host_and_the_origin_markets_send_workers_to(load_settings: Any) -> None:
    settings = load_settings(**PRODUCTION, STANCEWORK_DOMAIN="Stancework.Example.org")

    assert settings["ALLOWED_HOSTS"] == ["stancework.example.org"]
    assert settings["MARKET_PUBLIC_URL"] == "https://stancework.example.org"


def test_explicit_hosts_and_market_url_win_over_the_domain(load_settings: Any) -> None:
    settings = load_settings(
        **PRODUCTION,
        STANCEWORK_DOMAIN="stancework.example.org",
        ALLOWED_HOSTS="a.example.org,b.example.org",
        MARKET_PUBLIC_URL="https://tasks.example.org",
    )

    assert settings["ALLOWED_HOSTS"] == ["a.example.org", "b.example.org"]
    assert settings["MARKET_PUBLIC_URL"] == "https://tasks.example.org"


@pytest.mark.parametrize("domain", ["https://stancework.example.org", "stancework.example.org:443", "a b"])
def test_a_domain_with_a_scheme_port_or_space_stops_start_up(load_settings: Any, domain: str) -> None:
    with pytest.raises(ConfigError, match=r"STANCEWORK_DOMAIN=.* is not a host name"):
        load_settings(**PRODUCTION, STANCEWORK_DOMAIN=domain)


def test_production_trusts_the_proxy_header_and_turns_on_https_hsts_and_secure_cookies(
    load_settings: Any,
) -> None:
    settings = load_settings(**PRODUCTION, STANCEWORK_DOMAIN="stancework.example.org")

    assert settings["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert settings["SECURE_SSL_REDIRECT"] is True
    assert settings["SECURE_HSTS_SECONDS"] >= 30 * 24 * 60 * 60
    assert settings["SESSION_COOKIE_SECURE"] is True and settings["CSRF_COOKIE_SECURE"] is True


def test_development_trusts_no_proxy_header(load_settings: Any) -> None:
    settings = load_settings(DEBUG="true", SECRET_KEY="dev")

    assert "SECURE_PROXY_SSL_HEADER" not in settings
    assert settings["MARKET_PUBLIC_URL"] == ""
    assert settings["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost"]


def test_the_request_size_limit_comes_from_the_variable_the_proxy_reads(load_settings: Any) -> None:
    assert load_settings(**PRODUCTION)["DATA_UPLOAD_MAX_MEMORY_SIZE"] == 2_621_440
    larger = load_settings(**PRODUCTION, MAX_REQUEST_BYTES="5000000")
    assert larger["DATA_UPLOAD_MAX_MEMORY_SIZE"] == 5_000_000
    with pytest.raises(ConfigError, match="MAX_REQUEST_BYTES='10' is below the minimum"):
        load_settings(**PRODUCTION, MAX_REQUEST_BYTES="10")


def test_keeping_no_backups_stops_start_up(load_settings: Any) -> None:
    with pytest.raises(ConfigError, match="BACKUP_KEEP='0' is below the minimum of 1"):
        load_settings(**PRODUCTION, BACKUP_KEEP="0")


def test_database_connections_persist_and_a_dead_one_is_replaced_before_use(load_settings: Any) -> None:
    database = load_settings(**PRODUCTION, DATABASE_URL="postgres://app@db:5432/stancework")["DATABASES"]
    assert database["default"]["CONN_MAX_AGE"] == 60 and database["default"]["CONN_HEALTH_CHECKS"] is True
    off = load_settings(**PRODUCTION, DB_CONN_HEALTH_CHECKS="false", DB_CONN_MAX_AGE="0")["DATABASES"]
    assert off["default"]["CONN_MAX_AGE"] == 0 and off["default"]["CONN_HEALTH_CHECKS"] is False


def test_postgresql_statements_are_prepared_unless_a_pooler_cannot_keep_them(load_settings: Any) -> None:
    url = "postgres://app@db:5432/stancework"
    options = load_settings(**PRODUCTION, DATABASE_URL=url)["DATABASES"]["default"]["OPTIONS"]
    assert options["server_side_binding"] is True and options["prepare_threshold"] == 2
    off = load_settings(**PRODUCTION, DATABASE_URL=url, DB_PREPARED_STATEMENTS="false")["DATABASES"]
    assert "server_side_binding" not in off["default"].get("OPTIONS", {})


def test_the_database_urls_own_options_survive_prepared_statements(load_settings: Any) -> None:
    url = "postgres://app@db:5432/stancework?sslmode=require&application_name=web"
    options = load_settings(**PRODUCTION, DATABASE_URL=url)["DATABASES"]["default"]["OPTIONS"]
    assert options["sslmode"] == "require" and options["application_name"] == "web"
    assert options["server_side_binding"] is True
